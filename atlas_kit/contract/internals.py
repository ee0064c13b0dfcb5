"""What counts as an internal in text a model reads: tracebacks, paths, hosts, SQL, exception classes and the rest.

One definition, used by the builder's guard (errors.py refuses a message that holds one) and by the rubric
(rubric.py flags an answer that does). Patterns only: keys are redaction.looks_secret's; a tenant's id is found by
its shape ("tenant 9312", org_8f3k2), never a customer's data written as plain words (errors.py says what patterns
cannot know). Chapters 03 and 08.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterator, Literal, get_args

from ..types.memo import text_memo

__all__ = ["INTERNALS", "KIND_WORDS", "Internal", "InternalKind", "SCAN_CHARS", "find_each", "find_internals",
           "has_internals", "plain"]

InternalKind = Literal["traceback", "file path", "host", "SQL", "database error code", "OS error code",
                       "exception class", "validation dump", "URL", "HTTP status", "HTML", "protocol error code",
                       "memory address", "key or password", "tenant id"]

# Texts longer than this are searched in their first SCAN_CHARS characters only: some patterns backtrack on
# very long runs of letters, and an answer that long already fails on length.
SCAN_CHARS = 20_000

_SOURCE_EXT = r"(?:py|pyc|js|mjs|cjs|ts|tsx|jsx|go|rb|java|kt|rs|php|cs|cc|cpp|hpp|swift|scala|exs?|lua|pl|sh)"
_CLOUD_HOSTS = (r"rds\.amazonaws\.com|cache\.amazonaws\.com|amazonaws\.com|database\.windows\.net|database\.azure\.com|"
                r"documents\.azure\.com|windows\.net|mongodb\.net|supabase\.co|neon\.tech|psdb\.cloud|aivencloud\.com|"
                r"cockroachlabs\.cloud|googleapis\.com|upstash\.io|herokuapp\.com|ondigitalocean\.com")

# A host's label: at most 63 characters, as in DNS. Names, file names and dotted module paths are bounded too (16
# labels or parts, 255 characters a file name): each match starts at every word boundary inside a long run, and
# unbounded, each start read the rest of the run, which cost quadratic time (20,000 characters of "a.a.a.": 12 s).
_LABEL = r"[a-z0-9-]{1,63}"

# (kind, pattern). Each pattern carries its own flags: SQL keywords and class names are case-sensitive where
# ordinary English would otherwise match ("select one from the list" is a sentence, not a query).
_PATTERNS: tuple[tuple[InternalKind, str], ...] = (
    ("traceback", r"Traceback \(most recent call last\)|File \"[^\"\n]+\", line \d+|goroutine \d+ \[|"
                  r"(?m:^\s*at [^\n]{0,200}?:\d+:\d+\)?\s*$)|\bat [\w$.]+\([\w$]+\.(?:java|kt):\d+\)|node:internal/"),
    ("file path", r"(?<![\w$.])(?:~|\.{1,2})?/(?:[\w.-]+/)+[\w.-]*|(?i:\b[a-z]:\\\\?[\w.-]+)|\\\\[\w.$-]+\\[^\s]+|"
                  r"(?<![\w/.-])(?:[\w.-]+/)+[\w-]+\." + _SOURCE_EXT + r"\b|"
                  r"\b[\w-]{1,255}\." + _SOURCE_EXT + r":\d+\b|(?-i:\b[a-z_][a-z0-9_]*\.py\b)"),
    ("URL", r"(?i:\b(?:https?|file|postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp)://[^\s'\"<>]+)"),
    ("host", r"(?i:\b" + _LABEL + r"\.(?:internal|local|corp|lan|svc)\b|"
             r"\b(?:" + _LABEL + r"\.){1,16}(?:" + _CLOUD_HOSTS + r")\b|"
             r"\b(?:localhost|" + _LABEL + r"(?:\." + _LABEL + r"){1,16}):\d{2,5}\b)|"
             r"\b\d{1,3}(?:\.\d{1,3}){3}\b|"
             r"(?i:\[[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?:%\w+)?\](?::\d{1,5})?|"
             r"(?<![\w:])(?=[0-9a-f:]*::)[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![\w:])|"
             r"(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:]))"),
    ("SQL", r"(?-i:\bSELECT\s[\s\S]{0,200}?\bFROM\s)|(?i:\bselect\s+(?:\*|count\s*\(|distinct\s)[\s\S]{0,200}?\bfrom\s)|"
            r"(?i:\binsert\s+into\s+[\w.\"`\[\]]+)|(?i:\bupdate\s+[\w.\"`\[\]]+\s+set\s+[\w.\"`]+\s*=)|"
            r"(?-i:\bDELETE\s+FROM\s)|(?i:\bdelete\s+from\s+[\w.\"`\[\]]+\s+where\b)|"
            r"(?i:\bsyntax error at or near\b|\bviolates (?:check|unique|foreign key|not-null) constraint\b|"
            r"\brelation \"[\w.]+\" does not exist\b|\bduplicate key value\b)"),
    ("database error code", r"\bORA-\d{4,5}\b|(?i:\bSQLSTATE\b)|\bERROR \d{4} \(\w{5}\)|\bE11000\b"),
    ("OS error code", r"\[Errno -?\d+\]|\b(?:ENOENT|EACCES|EPERM|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EEXIST|ENOTDIR|"
                      r"EISDIR|ENOTEMPTY|ENAMETOOLONG|ELOOP|EROFS|ENOSPC|EADDRINUSE|EPIPE|ENOTFOUND|EAI_AGAIN|EMFILE|EBUSY)\b"),
    ("validation dump", r"(?i:errors\.pydantic\.dev|for further information visit\b|\b\d+ validation errors? for\b|"
                        r"\binput_value=|\[type=[a-z_]+,|\bfailed validating\b|\bon instance\[|\bZodError\b|"
                        r"\"code\":\s*\"invalid_(?:type|union|enum_value)\")"),
    # A class's name (ValueError, botocore.exceptions.NoSuchKey), the built-in exceptions not named ...Error, and a
    # CamelCase or dotted name followed by a colon: how an exception prints itself ("NoSuchKey: The key ...",
    # "requests.exceptions.Timeout: ..."). An English word before a colon ("Note:") has one capital, and passes.
    ("exception class", r"(?-i:\b[a-z_][a-z0-9_]{0,63}(?:\.[a-z_][a-z0-9_]{0,63}){0,16}\.[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b)|"
                        r"(?-i:\b[A-Z][A-Za-z0-9]*[a-z0-9](?:Error|Exception)\b|\b[A-Z]{2,}(?:Error|Exception)\b)|"
                        r"(?-i:\b(?:KeyboardInterrupt|SystemExit|GeneratorExit|StopIteration|StopAsyncIteration"
                        r"|[A-Z][A-Za-z0-9]*Warning)\b)|"
                        r"(?-i:\b[A-Z][A-Za-z0-9]{0,63}[a-z0-9][A-Z][A-Za-z0-9]{0,63}(?=:(?:\s|$)))|"
                        r"(?-i:\b[a-z_][a-z0-9_]{0,63}(?:\.[a-z_][a-z0-9_]{0,63}){0,16}\.[A-Z][A-Za-z0-9]{0,63}"
                        r"(?=:(?:\s|$)))|"
                        r"(?i:exception:)|<class '[\w.]+'>"),
    ("HTTP status", r"\bHTTP(?:/\d(?:\.\d)?)?\s+[1-5]\d\d\b|\b[45]\d\d (?:Bad Request|Unauthorized|Forbidden|Not Found|"
                    r"Method Not Allowed|Conflict|Gone|Too Many Requests|Internal Server Error|Bad Gateway|"
                    r"Service Unavailable|Gateway Timeout)\b"),
    ("HTML", r"(?i:<html|<!doctype html|<body\b|<head>|<title>)"),
    ("protocol error code", r"(?i:\bMCP error -?\d+\b|\bJSON-?RPC error\b)|-32[0-7]\d\d\b"),
    ("memory address", r"(?i:\b0x[0-9a-f]{6,}\b)"),
    ("key or password", r"(?i:\b(?:password|passwd|pwd|secret|client_secret|api[_-]?key|access[_-]?key|private[_-]?key|token)"
                 r"\s*[=:]\s*[^\s,;]+|"
                 r"\b(?:password|passwd|pwd)\s+(?:(?:is|was|of|for\s+\S+\s+is)\s+)?"
                 r"(?:[\"'][^\"'\s]{3,}[\"']|(?=[^\s,;]*[\d!@#$%^&*_+=~?])[^\s,;]{4,}))"),
    # Which tenant (organisation, workspace) a record lives in: a field's name (tenant_id, org_id, workspaceId), an
    # id with a tenant's prefix (org_8f3k2, wrkspc_01A), or "tenant" before something shaped like an id (tenant 9312,
    # tenant: acme, tenant acme-prod). A tenant's name written as a plain word ("tenant acme") reads as English.
    ("tenant id", r"(?i:\b(?:tenant|org|organi[sz]ation|workspace)[_-]?ids?\b)|"
                  r"(?-i:\b(?:tenant|org|organization|workspace)Ids?\b)|"
                  r"\b(?:org|tnt|tenant|wrkspc|workspace)_[A-Za-z0-9]{3,}\b|"
                  r"(?i:\btenant\s*(?:[:=#]\s*[\"']?[\w.-]+|\s[\"'][^\"'\s]{1,64}[\"']"
                  r"|\s(?=[\w.-]{0,64}[0-9_-])[A-Za-z0-9][\w.-]{0,63}))"),
)

KIND_WORDS: dict[InternalKind, str] = {
    "traceback": "a traceback", "file path": "a file path", "host": "a host or address", "SQL": "SQL",
    "database error code": "a database error code", "OS error code": "an OS error code",
    "exception class": "an exception class", "validation dump": "a validation library's dump", "URL": "a URL",
    "HTTP status": "an HTTP status", "HTML": "HTML", "protocol error code": "a protocol error code",
    "memory address": "a memory address", "key or password": "a key or password", "tenant id": "a tenant's id",
}
"""Each kind in words, for a refusal that names what it found and never repeats the text."""

INTERNALS: re.Pattern[str] = re.compile("|".join(f"(?P<k{i}>{p})" for i, (_, p) in enumerate(_PATTERNS)))
"""Every pattern in one regex; a match's `lastgroup` is `k<i>`, the i-th kind of the table above."""

_KINDS: tuple[InternalKind, ...] = tuple(kind for kind, _ in _PATTERNS)
assert set(_KINDS) == set(get_args(InternalKind)) == set(KIND_WORDS)  # each kind: one pattern, one wording


@dataclass(frozen=True)
class Internal:
    """One internal found: its kind and the text that matched (at most 60 characters of it)."""

    kind: InternalKind
    excerpt: str


def _kind(match: re.Match[str]) -> InternalKind:
    return _KINDS[int((match.lastgroup or "k0")[1:])]


def plain(text: str) -> str:
    """`text` as the patterns read it: compatibility forms folded (fullwidth ＳＥＬＥＣＴ is SELECT) and invisible
    format characters (zero-width spaces, direction overrides) left out, so neither hides an internal or a key."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


@text_memo  # a sweep builds the same few hundred messages over and over; the search is ~0.15 ms
def has_internals(text: str) -> bool:
    """Whether `text` (its first SCAN_CHARS characters) holds anything for the trace rather than the model."""
    return INTERNALS.search(plain(text[:SCAN_CHARS])) is not None


def find_internals(text: str) -> tuple[Internal, ...]:
    """Each internal in `text` (its first SCAN_CHARS characters, read plain), in order, at most one per kind."""
    found: dict[InternalKind, Internal] = {}
    for match in INTERNALS.finditer(plain(text[:SCAN_CHARS])):
        kind = _kind(match)
        found.setdefault(kind, Internal(kind, match.group(0)[:60]))
    return tuple(found.values())


def find_each(text: str) -> Iterator[tuple[Internal, int, int]]:
    """Every internal in `text` (its first SCAN_CHARS characters, read plain), in order, each with where it starts and
    ends in plain(text): a reader that must tell one match from another of the same kind (rubric.py: the caller's own
    path against the server's) reads them all."""
    for match in INTERNALS.finditer(plain(text[:SCAN_CHARS])):
        yield Internal(_kind(match), match.group(0)[:60]), match.start(), match.end()
