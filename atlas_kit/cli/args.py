"""The command line's shared parts: the argparse types that turn a bad option into one actionable line, the
closed choices, and `_one_line`, which prints an error on one redacted line. atlas-kit runs chapter 11's sweeps.

The types keep their leading underscore: argparse names a type by its __name__ in the rare message it writes
itself (a ValueError the type did not catch), and those messages stay as they were.
"""
from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Callable, Protocol

from ..dispatch.styles import STYLES

__all__ = ["ON_OFF", "STYLE_NAMES", "Commands", "_cassette", "_chapter", "_csv", "_dollars", "_existing", "_name",
           "_one_line", "_positive", "_preset_name", "_profile", "_seconds", "_seed", "_ticket", "_tickets"]

STYLE_NAMES: tuple[str, ...] = tuple(STYLES)  # the registry's names: a new style is offered everywhere at once
ON_OFF = {"on": True, "off": False}


class Commands(Protocol):
    """Where each command adds its parser: what `parser.add_subparsers()` returns (argparse gives its class no
    public name). Every command module has an `add_..._parser(sub)` beside its handler."""

    def add_parser(self, name: str, *, help: str | None = ..., description: str | None = ..., epilog: str | None = ...,
                   formatter_class: type[argparse.HelpFormatter] = ...) -> argparse.ArgumentParser: ...


def _one_line(err: BaseException) -> str:
    """An error as one line with any secret redacted: an OSError as its reason and file name."""
    from ..contract.redaction import redact

    if isinstance(err, OSError) and err.strerror:
        text = f"{err.strerror}: {err.filename}" if err.filename is not None else err.strerror
    else:
        text = str(err)
    return redact(" ".join(text.split()))


def _preset_name(text: str) -> str:
    """`--preset`: the name of a published design in presets.PRESETS."""
    from ..experiments.presets import PRESETS

    if text not in PRESETS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a preset; accepted values: {', '.join(PRESETS)}.")
    return text


def _name(text: str) -> str:
    """`--name`: a plain file name, so the results stay inside --out."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", text) or ".." in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a plain file name; use letters, digits, '_', '-' and '.' "
                                         "(no '/' or '..'), e.g. sweep-01. The files go in --out.")
    return text


def _dollars(text: str) -> float:
    """`--budget`: US dollars above 0 (a leading $ is allowed)."""
    try:
        value = float(text.strip().lstrip("$"))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a number of US dollars above 0, e.g. 25.")
    return value


def _csv(kind: str, accepted: tuple[str, ...], convert: Callable[[str], object] = str) -> Callable[[str], list[object]]:
    """An argparse type: a comma-separated list, each item one of `accepted`, else the accepted values."""
    def parse(text: str) -> list[object]:
        items = [item.strip() for item in text.split(",") if item.strip()]
        wrong = [item for item in items if item not in accepted]
        if not items or wrong:
            shown = ", ".join(repr(w) for w in wrong) or "an empty list"
            raise argparse.ArgumentTypeError(f"{shown} is not a {kind}; accepted values: {','.join(accepted)} "
                                             "(comma-separated).")
        return list(dict.fromkeys(convert(item) for item in items))
    parse.__name__ = kind  # argparse names the type in some messages
    return parse


def _positive(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a whole number of at least 1.")
    return value


def _seed(text: str) -> int:
    """A seed: a whole number of 0 or more."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a whole number of 0 or more.")
    return int(text)


def _profile(text: str) -> str:
    """`--profile`: a named profile of the offline stand-in."""
    from ..experiments.episodes import named_profiles

    known = tuple(named_profiles())
    if text not in known:
        raise argparse.ArgumentTypeError(f"{text!r} is not a profile of the offline stand-in; "
                                         f"accepted values: {', '.join(known)}.")
    return text


def _cassette(text: str) -> Path:
    """`--cassette`: an existing file."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a file; give the path of a cassette recorded with "
                                         "choose_model(..., record=PATH).")
    return path


def _tickets(text: str) -> list[object]:
    """`--tickets`: ticket ids, comma-separated."""
    from ..atlas import ALL_TICKETS  # the core 27 and the implicit-failure tickets of chapter 14

    return _csv("ticket id", tuple(ALL_TICKETS))(text)


def _ticket(text: str) -> str:
    """`mcp --ticket`: one of the core tickets."""
    from ..atlas import TICKETS

    if text not in TICKETS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ticket id; give one of T01 to T{len(TICKETS):02d}.")
    return text


def _chapter(text: str) -> str:
    """`grade --chapter`: a chapter's number or stem, as its two digits."""
    head = text.strip()[:2]
    if not (head.isascii() and head.isdigit()) or not (len(text.strip()) <= 2 or text.strip()[2] == "_"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a chapter; give its number, e.g. 02 (or its stem, "
                                         "02_four_branches).")
    return f"{int(head):02d}"


def _existing(text: str) -> Path:
    """`grade SUBMISSION`: a path that exists."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text!r} does not exist; give exercise notebooks (.ipynb) or folders of them.")
    return path


def _seconds(text: str) -> float:
    """A number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a number of seconds above 0.")
    return value
