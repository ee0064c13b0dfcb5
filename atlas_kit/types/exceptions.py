"""atlas_kit's own exceptions: `AtlasKitError` is the base of every error atlas_kit raises for a bad option or value
(or a misuse), so `except AtlasKitError` catches them in one place. Failures of tools (ToolFailure, Transient) and
of the API (anthropic's errors, ReplayMiss) are not these. Every message names the parameter, the problem and the fix.

Each error keeps the built-in class it always had: AtlasKitValueError is a ValueError, and keeps that name, so
`except ValueError` still catches it and a message that prints `type(err).__name__` (chapter 08) reads as before.
"""
from __future__ import annotations

import builtins
import linecache
import sysconfig
from pathlib import Path
from types import TracebackType

# Frames in these folders are not the learner's: atlas_kit itself, installed packages and the standard library.
_NOT_YOURS = tuple(str(Path(p).resolve()) for p in {str(Path(__file__).resolve().parents[1]),
                                                      *(sysconfig.get_paths()[k] for k in ("purelib", "platlib", "stdlib"))})


class OneLine:
    """An exception that renders itself in IPython (a notebook cell, papermill): its message, and the line of your
    own code that led to it, instead of a traceback through atlas_kit's code. Outside IPython it is a normal error."""

    def _render_traceback_(self) -> list[str]:  # IPython's hook for exceptions that render themselves
        where = _your_line(self.__traceback__ if isinstance(self, BaseException) else None)
        return [f"{type(self).__name__}: {self}", *([where] if where else [])]


def _your_line(tb: TracebackType | None) -> str | None:
    """Where your code called in: the last frame of the traceback that is not atlas_kit's, a package's or Python's."""
    found = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith("<frozen") and not str(Path(name).resolve()).startswith(_NOT_YOURS):
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    if found is None:
        return None
    text = linecache.getline(*found).strip()
    return f"  (raised by your line {found[1]}{': ' + text if text else ''})"


class AtlasKitError(OneLine, Exception):
    """The base of atlas_kit's errors for bad input and misuse: catch it to catch them all. In a notebook it shows
    its one line and the line of yours that caused it (OneLine), not a traceback."""


class ValueError(AtlasKitError, builtins.ValueError):
    """A value atlas_kit cannot use: a ValueError (and named so) that is also an AtlasKitError."""


class TypeError(AtlasKitError, builtins.TypeError):
    """An argument of a kind atlas_kit does not take: a TypeError (and named so) that is also an AtlasKitError."""


class KeyError(AtlasKitError, builtins.KeyError):
    """A name atlas_kit does not know (a ticket id, a layer): a KeyError (and named so) that is also an
    AtlasKitError."""


AtlasKitValueError = ValueError
"""The public name of atlas_kit's ValueError."""
AtlasKitTypeError = TypeError
"""The public name of atlas_kit's TypeError."""
AtlasKitKeyError = KeyError
"""The public name of atlas_kit's KeyError."""
