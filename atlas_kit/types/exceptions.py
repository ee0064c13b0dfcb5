"""atlas_kit's own exceptions: `AtlasKitError` is the base of every error atlas_kit raises for a bad option or value
(or a misuse), so `except AtlasKitError` catches them in one place. Failures of tools (ToolFailure, Transient) and
of the API (anthropic's errors, ReplayMiss) are not these. Every message names the parameter, the problem and the fix.

Each error keeps the built-in class it always had: AtlasKitValueError is a ValueError, and keeps that name, so
`except ValueError` still catches it and a message that prints `type(err).__name__` (chapter 08) reads as before.
"""
from __future__ import annotations

import builtins

__all__ = ["AtlasKitError", "AtlasKitKeyError", "AtlasKitTypeError", "AtlasKitValueError"]


class AtlasKitError(Exception):
    """The base of atlas_kit's errors for bad input and misuse: catch it to catch them all."""


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
