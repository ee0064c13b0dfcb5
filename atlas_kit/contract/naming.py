"""Which arguments an error's words name (the rubric's `next` rule): with the tool's argument names, whether the words
mention one; without them (someone else's log), "argument x", "field 'x'" and pydantic's own layouts. Words, not a
parser: a heuristic.
"""
from __future__ import annotations

import re

# "argument x", "field 'x'": the word after the noun, on the same line; unquoted, an ordinary word is no name
# ("Field required", "Input should be a valid integer": pydantic's words, naming nothing).
_NAMED_ARG = re.compile(r"(?i:\b(?:argument|parameter|field|property|input)[ \t]+([`'\"])?([a-z_][a-z0-9_.]*))")
_NOT_NAMES = frozenset("a an the is are was were be been has have had should must may can cannot could will would "
                       "required missing invalid expected value values error errors type types validation of to for "
                       "in on with and or not no that this it its".split())
# Pydantic's own layouts name the field: alone on a line above its indented message and [type=...], or a dump's "loc".
_LOC_LINE = re.compile(r"^([A-Za-z_][\w.]*)\n[ \t]+[^\n]*\[type=\w+", re.MULTILINE)
_LOC_JSON = re.compile(r'"loc"\s*:\s*\[\s*"([A-Za-z_][\w.]*)"')


def named_arguments(words: str) -> list[str]:
    """The argument names a text gives, when no schema says which names the tool takes."""
    names = [m.group(2) for m in _NAMED_ARG.finditer(words) if m.group(1) or m.group(2).lower() not in _NOT_NAMES]
    return names + [m.group(1) for pattern in (_LOC_LINE, _LOC_JSON) for m in pattern.finditer(words)]


def mentions_argument(words: str, name: str) -> bool:
    """Whether the words mention the argument `name` as a word of its own. A name that is also an ordinary word ("a",
    "type", "value") counts only where it is plainly a name: quoted, after "argument", "field" and the like, or where
    a validation library puts the path ("... at a", at the end of a clause)."""
    escaped = re.escape(name)
    if name.lower() not in _NOT_NAMES:
        return re.search(rf"(?<![\w.]){escaped}(?![\w])", words) is not None
    return re.search(rf"[`'\"]{escaped}[`'\"]|(?i:\b(?:argument|parameter|field|property|input)[ \t]+){escaped}\b|"
                     rf"\bat {escaped}(?=\s*(?:$|[,;.\n]))", words) is not None
