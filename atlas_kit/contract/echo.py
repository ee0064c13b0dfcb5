"""The caller's input in an answer: which argument value comes back (the rubric's echo rule), and which paths, URLs
and codes in an answer are the caller's own rather than the server's insides (what the internals rule leaves out).

Pure functions on text, used by rubric.py. Chapter 08 teaches the echo surface; `atlas-kit audit` (chapter 10) and
the README's "paths, URLs and errnos" say why a path the caller gave is no leak.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from .internals import Internal, find_each, plain

__all__ = ["ECHO_MIN_CHARS", "ECHO_RUN_CHARS", "Echo", "callers_own", "find_echo", "looked_for", "values"]

ECHO_MIN_CHARS = 3  # with short echoes looked for: a value this long or longer, found whole in the answer, is an echo
ECHO_RUN_CHARS = 12  # always: a run this long of a value found in the answer is an echo (an answer may cut or wrap it)
_SCAN = 100_000  # characters of the answer searched, and of each argument value

# pydantic's dump repeats the input it refused: `input_value='ten'`, `input_value=0`, `input_value={...}`
_INPUT_VALUE = re.compile(r"\binput_value=(.{0,400}?)(?:, input_type=|\]\s*$|\]\n)", re.MULTILINE)
_WORDISH = re.compile(r"\w+")
# An argument is a path or a URL by its name's parts (read_file's `path`, move_file's `source`) or its schema.
_PATH_PARTS = frozenset("path paths file files filename filepath filenames dir dirs directory directories folder "
                        "folders source destination src dest root".split())
_URL_PARTS = frozenset("url urls uri uris link links href endpoint".split())
_URL_FORMATS = frozenset({"uri", "uri-reference", "iri", "iri-reference", "url"})
_PATH_WORDS = re.compile(r"(?i)\b(?:path|file|directory|folder)\b")
_URL_WORDS = re.compile(r"(?i)\b(?:url|uri|web ?page|link)\b")
# The file API's own codes: said by a file tool about the caller's file, each beside its plain meaning (ENOENT: no
# such file or directory). Network codes (ECONNREFUSED) are the server's insides whatever the tool.
_FILE_ERRNOS = frozenset("ENOENT EACCES EPERM EEXIST ENOTDIR EISDIR ENOTEMPTY ENAMETOOLONG ELOOP EROFS ENOSPC EBUSY "
                         "EMFILE".split())


@dataclass(frozen=True)
class Echo:
    """Where an echo was found: the argument (its top-level name) and how: "run" (ECHO_RUN_CHARS of it, verbatim), or
    in words (the whole value; pydantic's input_value)."""

    argument: str
    how: str


def values(arguments: object, path: str = "") -> Iterable[tuple[str, object]]:
    """Every string and number inside `arguments`, with the top-level argument it is under (booleans are left out:
    `true` is everyone's word)."""
    if isinstance(arguments, (str, int, float)) and not isinstance(arguments, bool):
        yield path or "input", arguments
    elif isinstance(arguments, dict):
        for key, item in arguments.items():
            yield from values(item, path or str(key))
    elif isinstance(arguments, (list, tuple)):
        for item in arguments:
            yield from values(item, path)


def _as_text(value: object) -> str:
    return value[:_SCAN] if isinstance(value, str) else json.dumps(value)


def _whole(value: str) -> re.Pattern[str]:
    """The value as a token of its own: not inside a longer word or number; a word's case does not matter."""
    flags = re.IGNORECASE if _WORDISH.fullmatch(value) else 0
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", flags)


def find_echo(haystack: str, arguments: object, own: str, *, short: bool = False) -> Echo | None:
    """The first argument value that comes back in `haystack`: pydantic's input_value of any value (a validation
    dump repeats what it refused), a run of ECHO_RUN_CHARS of a value, and with `short` a whole value of
    ECHO_MIN_CHARS or more. `own` is the tool's own words (its schema): a value found there too is the tool's
    vocabulary, not an echo."""
    given = list(values(arguments))
    for dumped in _INPUT_VALUE.finditer(haystack):
        for path, value in given:
            shown = repr(value[:_SCAN]) if isinstance(value, str) else json.dumps(value)
            if _whole(shown).search(dumped.group(1)):
                return Echo(path, "pydantic's input_value repeats it")
    grams: set[str] | None = None
    for path, value in given:
        text = _as_text(value)
        if len(text) < (ECHO_MIN_CHARS if short else ECHO_RUN_CHARS):
            continue
        if len(text) < ECHO_RUN_CHARS:
            pattern = _whole(text)
            if pattern.search(haystack) and not pattern.search(own):
                return Echo(path, "its value comes back whole")
            continue
        if grams is None:
            grams = {haystack[i:i + ECHO_RUN_CHARS] for i in range(len(haystack) - ECHO_RUN_CHARS + 1)}
        for i in range(len(text) - ECHO_RUN_CHARS + 1):
            gram = text[i:i + ECHO_RUN_CHARS]
            if gram in grams and gram not in own:
                return Echo(path, "run")
    return None


def looked_for(arguments: object, *, short: bool = False) -> bool:
    """Whether any argument value is long enough for the echo rule to look for it."""
    return any(len(_as_text(v)) >= (ECHO_MIN_CHARS if short else ECHO_RUN_CHARS) for _, v in values(arguments))


def _parts(name: str) -> set[str]:
    """An argument's name in lower-case parts: `sortBy` is sort and by, `source_timezone` source and timezone."""
    return {p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)}


def _resource_kinds(name: str, schema: object) -> set[str]:
    """Whether an argument holds a path, a URL, both or neither, by its name's parts or its schema."""
    kinds = {"path"} if _parts(name) & _PATH_PARTS else set()
    kinds |= {"url"} if _parts(name) & _URL_PARTS else set()
    if isinstance(schema, Mapping):
        about = " ".join(str(schema.get(k, "")) for k in ("description", "title"))
        kinds |= {"url"} if schema.get("format") in _URL_FORMATS or _URL_WORDS.search(about) else set()
        kinds |= {"path"} if _PATH_WORDS.search(about) else set()
        items = schema.get("items")
        if isinstance(items, Mapping) and items.get("format") in _URL_FORMATS:
            kinds.add("url")
    return kinds


def callers_own(text: str, arguments: object, schema: Mapping[str, object] | None) -> list[Internal]:
    """The internals in `text` that are not the caller's own, the first of each kind (as find_internals gives them). A path or URL is the caller's when a value of an argument
    that holds a path or a URL sits inside it (the caller's file, resolved in the folder the server serves; the page
    the caller asked for). For a tool that takes a path, a file errno (ENOENT) is the file API's word for the caller's
    file; for a tool that takes a URL, an HTTP status is the fetched page's own answer."""
    found = list(find_each(text))
    if not found:
        return []
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    names = {str(k) for k in arguments} if isinstance(arguments, Mapping) else set()
    kinds = {name: _resource_kinds(name, props.get(name)) for name in names | {str(k) for k in props}}
    takes = set().union(*kinds.values()) if kinds else set()
    read = plain(text)
    spans = [(m.start(), m.end()) for name, k in kinds.items() if k and isinstance(arguments, Mapping)
             for _, value in values(arguments.get(name)) if isinstance(value, str) and len(value.strip()) >= ECHO_MIN_CHARS
             for m in re.finditer(re.escape(plain(value.split()[0])), read)]
    kept: dict[str, Internal] = {}
    for internal, start, end in found:
        if internal.kind in ("file path", "URL") and any(a < end and b > start for a, b in spans):
            continue
        if internal.kind == "OS error code" and "path" in takes and internal.excerpt in _FILE_ERRNOS:
            continue
        if internal.kind == "HTTP status" and "url" in takes:
            continue
        kept.setdefault(internal.kind, internal)
    return list(kept.values())
