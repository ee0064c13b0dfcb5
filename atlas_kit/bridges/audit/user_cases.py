"""Your own failing calls (`--cases FILE`): calls that should fail for reasons a schema cannot see.

One JSON object per line (JSONL), or one JSON list of them:
    {"tool": "get_invoice", "arguments": {"invoice_id": "INV-0000"}, "why": "no invoice has this id"}
`why` is optional. A bad file is refused with one line naming the entry and what to change. Chapter 10.
"""
from __future__ import annotations

import json
from typing import cast
from pathlib import Path

from ...types.sets import JSONObject
from ...types.exceptions import AtlasKitValueError
from .cases import Case

EXAMPLE = '{"tool": "get_invoice", "arguments": {"invoice_id": "INV-0000"}, "why": "no invoice has this id"}'
_MAX_CASES = 1_000


class CasesFileError(AtlasKitValueError):
    """A --cases file that cannot be used, in one line: where, what is wrong, what to write instead."""


def read_cases(path: Path) -> list[Case]:
    """The file's cases, in order. `valid` is set later, against the tool's schema (run.py)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else "not UTF-8 text"
        raise CasesFileError(f"--cases {path}: cannot read it ({reason}); give a JSONL file of cases such as "
                             f"{EXAMPLE}") from None
    entries = _entries(path, text)
    if not entries:
        raise CasesFileError(f"--cases {path}: holds no case; write one per line, such as {EXAMPLE}")
    if len(entries) > _MAX_CASES:
        raise CasesFileError(f"--cases {path}: holds {len(entries)} cases, over {_MAX_CASES}; keep the "
                             f"{_MAX_CASES} that matter most, or audit the rest in a second run with another file.")
    return [_case(path, where, entry) for where, entry in entries]


def _entries(path: Path, text: str) -> list[tuple[str, object]]:
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            items = cast("list[object]", _strict(stripped))  # it starts with "[": valid JSON there is a list
        except RecursionError:
            raise CasesFileError(f"--cases {path}: nested too deeply to read; a case's arguments are a JSON object "
                                 "of a few levels") from None
        except json.JSONDecodeError as err:
            raise CasesFileError(f"--cases {path}: not valid JSON ({err.msg} at line {err.lineno}); write a JSON "
                                 f"list of cases, or one case per line") from None
        return [(f"entry {i + 1}", item) for i, item in enumerate(items)]
    out: list[tuple[str, object]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            out.append((f"line {n}", _strict(line)))
        except RecursionError:
            raise CasesFileError(f"--cases {path} line {n}: nested too deeply to read; a case's arguments are a JSON "
                                 "object of a few levels") from None
        except json.JSONDecodeError as err:
            raise CasesFileError(f"--cases {path} line {n}: not valid JSON ({err.msg}); each line is one case such "
                                 f"as {EXAMPLE}") from None
    return out


def _constant(name: str) -> object:
    raise json.JSONDecodeError(f"{name} is not JSON (write a number)", name, 0)


def _strict(text: str) -> object:
    """JSON as the spec has it: NaN, Infinity and -Infinity, which Python's reader takes, are refused."""
    return json.loads(text, parse_constant=_constant)


def _case(path: Path, where: str, entry: object) -> Case:
    def refuse(problem: str) -> CasesFileError:
        return CasesFileError(f"--cases {path} {where}: {problem}; write it as {EXAMPLE}")

    if not isinstance(entry, dict):
        raise refuse(f"is a JSON {type(entry).__name__}, not an object")
    unknown = sorted(set(entry) - {"tool", "arguments", "why"})
    if unknown:
        raise refuse(f"has a key the format does not know ({', '.join(map(repr, unknown[:3]))}); the keys are tool, "
                     "arguments and why")
    tool, arguments, why = entry.get("tool"), entry.get("arguments", {}), entry.get("why", "")
    if not isinstance(tool, str) or not tool.strip():
        raise refuse("'tool' must be the name of a tool, a string")
    if not isinstance(arguments, dict):
        raise refuse("'arguments' must be a JSON object of the call's arguments")
    if not isinstance(why, str):
        raise refuse("'why' must be a sentence saying why the call should fail")
    args: JSONObject = arguments
    return Case(tool, "user", args, why.strip() or "your case", valid=False)
