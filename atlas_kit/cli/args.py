"""The command line's shared parts: `Parser`, whose every error is one line and exit 2 (no usage block; --help shows
it), the argparse types that turn a bad option into one actionable line, the closed choices, and `_one_line`, which
prints an error on one redacted line. atlas-kit runs chapter 11's sweeps.

The types keep their leading underscore: argparse names a type by its __name__ in the rare message it writes
itself (a ValueError the type did not catch), and those messages stay as they were.
"""
from __future__ import annotations

import argparse
import math
import re
import sys
import unicodedata
from pathlib import Path
from typing import Callable, Literal, NoReturn, Protocol

from ..dispatch.styles import STYLES

__all__ = ["MAX_SECONDS", "ON_OFF", "STYLE_NAMES", "Commands", "Parser", "_cassette", "_chapter", "_csv", "_dollars",
           "_existing", "_existing_path", "_folder", "_model", "_name", "_names", "_one_line", "_path", "_plain",
           "_positive", "_preset_name", "_profile", "_seconds", "_seed", "_shown", "_ticket", "_tickets", "refuse",
           "unprintable_argument"]

STYLE_NAMES: tuple[str, ...] = tuple(STYLES)  # the registry's names: a new style is offered everywhere at once
ON_OFF = {"on": True, "off": False}
MAX_SECONDS = 86_400.0  # a day: more is a typo, and some waits overflow on a huge one (threading's, the kernel's)


class Parser(argparse.ArgumentParser):
    """atlas-kit's parser, and each command's (subparsers take the parent's class): a bad command line is one line
    on stderr, `atlas-kit COMMAND: error: ...`, and exit 2; the usage block is for --help alone. The line shows no
    control character, escape sequence or bidi override it was given, and no secret."""

    def error(self, message: str) -> NoReturn:
        refuse(self.prog, message)


def refuse(prog: str, message: str) -> NoReturn:
    """Print `prog: error: message` as one line, redacted and with its control characters escaped, and exit 2."""
    from ..contract.redaction import redact

    line = _shown(redact(" ".join(message.split())))
    if not line.endswith("."):  # argparse's own words (an unknown flag, a missing value) say nothing of what to do
        line += f"; `{prog} --help` lists what it takes."
    print(f"{prog}: error: {line}", file=sys.stderr)
    raise SystemExit(2)


class Commands(Protocol):
    """Where each command adds its parser: what `parser.add_subparsers()` returns (argparse gives its class no
    public name). Every command module has an `add_..._parser(sub)` beside its handler."""

    def add_parser(self, name: str, *, help: str | None = ..., description: str | None = ..., epilog: str | None = ...,
                   formatter_class: type[argparse.HelpFormatter] = ...) -> argparse.ArgumentParser: ...


def _one_line(err: BaseException) -> str:
    """An error as one line with any secret redacted and no control character: an OSError as its reason and file."""
    from ..contract.redaction import redact

    if isinstance(err, OSError) and err.strerror:
        text = f"{err.strerror}: {err.filename}" if err.filename is not None else err.strerror
    else:
        text = str(err)
    return _shown(redact(" ".join(text.split())))


def _shown(text: str) -> str:
    """`text` safe to print on a terminal: each control character (an escape sequence's ESC, a bell), format character
    (a bidi override, a zero-width space), line or paragraph separator or lone surrogate written as its escape."""
    return "".join(c.encode("unicode_escape", "backslashreplace").decode("ascii") if _hidden(c) else c for c in text)


def _hidden(char: str) -> bool:
    """Whether `char` acts on a terminal instead of showing: a control or format character, a line or paragraph
    separator, a surrogate. Spaces of any width show, so a file name with a no-break space is still a name."""
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs")


def unprintable_argument(argv: list[str]) -> str:
    """The line refusing the first argument (before a lone `--`) that holds a character `_hidden` names, or "". No
    option takes one, and a name or a path made of them would be echoed to the terminal (or run a sweep)."""
    for at, arg in enumerate(argv):
        if arg == "--":  # what follows is another program's command line (audit's server)
            break
        if any(_hidden(c) for c in arg):
            owner = argv[at - 1] if at and argv[at - 1].startswith("-") and not arg.startswith("-") else None
            what = f"argument {owner}: {arg!r}" if owner else repr(arg)
            return (f"{_shown(what)} holds a control character, a bidi override or a line break, which no option "
                    "takes; retype it in printable characters.")
    return ""


def _path(text: str) -> Path:
    """A path as given: not empty (main() has refused control characters in every argument). Whether it can be read
    or written is each option's own check."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path is not accepted; give a file or folder name.")
    return Path(text)


def _existing_path(kind: Literal["file", "folder", "path"], advice: str) -> Callable[[str], Path]:
    """An argparse type: a `kind` that exists (a file, a folder, or either), else what it is not and `advice`."""
    test = {"file": Path.is_file, "folder": Path.is_dir, "path": Path.exists}[kind]
    says = {"file": "is not a file", "folder": "is not a folder that exists", "path": "does not exist"}[kind]

    def parse(text: str) -> Path:
        path = _path(text)
        if not test(path):
            raise argparse.ArgumentTypeError(f"{text!r} {says}; {advice}")
        return path
    parse.__name__ = f"existing {kind}"
    parse.__doc__ = f"An argparse type: a {kind} that exists; else one line: {advice}"
    return parse


_folder = _existing_path("folder", "give the folder that holds the notebooks.")  # --chapters, --solutions
_existing = _existing_path("path", "give exercise notebooks (.ipynb) or folders of them.")  # grade SUBMISSION
_cassette = _existing_path("file", "give the path of a cassette recorded with choose_model(..., record=PATH).")


def _plain(text: str) -> str:
    """A name or an address (`--base-url`): not empty, no space at either end."""
    if not text.strip() or text != text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give it with no space at either end, e.g. "
                                         "http://localhost:11434.")
    return text


def _model(text: str) -> str:
    """`--model`: a model's spelling (a comma-separated list with --preset): no spaces, no empty item."""
    names = text.split(",")
    if not text.strip() or any(not name.strip() for name in names):
        raise argparse.ArgumentTypeError(f"{text!r} is not a model name; give one such as offline, claude-sonnet-4-5 "
                                         "or ollama:qwen3:4b (a comma-separated list with --preset, no empty item).")
    if any(c.isspace() for c in text.strip()):
        raise argparse.ArgumentTypeError(f"{text!r} holds a space, which no model name has; give one such as offline "
                                         "or claude-sonnet-4-5.")
    return text.strip()


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
        items = [item.strip() for item in text.split(",")]
        if "" in items:
            shown = f"{text!r} has an empty item" if text.strip() else "an empty list is not accepted"
            raise argparse.ArgumentTypeError(f"{shown}; give each {kind} once between commas, from: "
                                             f"{','.join(accepted)}.")
        wrong = [item for item in items if item not in accepted]
        if wrong:
            raise argparse.ArgumentTypeError(f"{', '.join(repr(w) for w in wrong)} is not a {kind}; accepted values: "
                                             f"{','.join(accepted)} (comma-separated).")
        return list(dict.fromkeys(convert(item) for item in items))
    parse.__name__ = kind  # argparse names the type in some messages
    return parse


def _names(kind: str, example: str) -> Callable[[str], list[str]]:
    """An argparse type: a comma-separated list of names (tools, say), with no empty item."""
    def parse(text: str) -> list[str]:
        names = [name.strip() for name in text.split(",")]
        if "" in names:
            raise argparse.ArgumentTypeError(f"{text!r} is not a list of {kind} names; give them comma-separated, with "
                                             f"no empty item, e.g. {example}.")
        return list(dict.fromkeys(names))
    parse.__name__ = f"{kind} names"
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


def _seconds(text: str) -> float:
    """A number of seconds above 0 and at most MAX_SECONDS: never infinite or NaN."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a number of seconds above 0 and at most "
                                         f"{MAX_SECONDS:,.0f} (a day), e.g. 30.")
    return value
