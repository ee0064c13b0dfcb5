"""Redaction: key-shaped strings (API keys, tokens, passwords) found and replaced before anything is kept.

`redact` is the one function that traces, results files, cassettes, transcripts and printed notes go
through; `looks_secret` is the stricter test the error builder applies to text written for the model.
What it cannot know (a tenant's data, a name) is left to the builder's other rules. Taught in chapter 08.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar, overload

from ..types.memo import text_memo
from .internals import plain

__all__ = ["hide_login", "looks_secret", "redact", "redact_known", "secret_values", "secret_variable"]

# Key-shaped tokens (Anthropic and other providers' keys, cloud access keys, GitHub, GitLab, Hugging Face and Slack
# tokens, JWTs, PEM private keys), bearer tokens and Authorization headers, an address's user:password, and a secret
# written after its name: "api_key=...", "DB_PASSWORD: ...", "password hunter2", "the password for admin is ...".
# Ids like ACC-4471, msg_... and sha256 fingerprints are left alone: only a known prefix or a secret's name marks a
# secret. A name counts at the start of a word or after _ or - (DB_PASSWORD, aws_secret_access_key), never inside one.
_NAME_START = r"(?<![A-Za-z0-9])"
# Names whose value is a secret whatever its length: after "=" or ":" even one character is a password.
_PASSWORD = r"(?:password|passwd|passphrase|pwd)"
_KEY_NAME = (r"(?:api[_-]?key|apikey|x-api-key|access[_-]?key(?:[_-]?id)?|secret(?:[_-]?access)?(?:[_-]?key)?"
             r"|client[_-]?secret|account[_-]?key|private[_-]?key|pass|auth[_-]?token|access[_-]?token"
             r"|refresh[_-]?token|session[_-]?token|id[_-]?token|token|credentials?)")
# The same names written with a space in them ("api key", "access token"): only before a space-separated value.
_SPACED_KEY = (r"(?:api[ _-]?key|access[ _-]?key(?:[ _-]?id)?|secret[ _-]?key|client[ _-]?secret"
               r"|(?:auth|access|refresh|session|bearer)[ _-]?token|token|secret)")
# A value written after a space (no "=" or ":"), so it reads like English unless it does not: quoted, or holding a
# digit or a symbol ("hunter2", "p@ss"). "password swordfish" is an English word after a name, and stays.
_QUOTED = r"\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'"
# Whole tokens: the shape alone says it is a secret.
_TOKENS = (
    r"\bsk-ant-[A-Za-z0-9_\-]{4,}|\b(?:sk|rk|pk)[-_](?:live|test|proj)?[-_]?"
    r"(?:[A-Za-z0-9]{20,}[A-Za-z0-9_\-]*|(?=[A-Za-z0-9_\-]*[0-9])[A-Za-z0-9][A-Za-z0-9_\-]{19,})"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"
    r"|\bhf_[A-Za-z0-9]{30,}|\bxox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"|-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|[\s\S]*)"
)
_VALUE = r"[^\s\"',;}&]"
# (what names the secret, kept as written; the secret after it, replaced): "Authorization: Bearer [redacted]".
_NAMED: tuple[tuple[str, str], ...] = (
    (r"\bauthorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|digest|negotiate|token)\s+)?", _VALUE + "{4,}"),
    (r"\bbearer\s+", r"(?:[A-Za-z0-9._~+/\-]{16,}|(?=[A-Za-z0-9._~+/\-]*[0-9._~+/\-])[A-Za-z0-9._~+/\-]{8,})=*"),
    (_NAME_START + r"(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?", _VALUE + "{4,}"),
    (_NAME_START + _PASSWORD + r"[\"']?\s*[:=]\s*[\"']?", _VALUE + "{1,}"),
    (_NAME_START + _KEY_NAME + r"[\"']?\s*[:=]\s*[\"']?", _VALUE + "{4,}"),
    (_NAME_START + _PASSWORD + r"\s+(?:(?:is|was|of|to|set\s+to|for\s+\S+\s+is)\s+)?",
     r"(?:" + _QUOTED + r"|(?=[^\s,;]*[0-9!@#$%^&*_+=~])[^\s,;'\"]{4,})"),
    (_NAME_START + _SPACED_KEY + r"\s+(?:(?:is|was|of)\s+)?",
     r"(?:" + _QUOTED + r"|(?=[A-Za-z0-9_\-./+=]*[0-9])[A-Za-z0-9_\-./+=]{8,})"),
)
_SECRET = re.compile(_TOKENS + "".join(f"|(?i:(?P<name{i}>{name}){value})" for i, (name, value) in enumerate(_NAMED)))


# A literal every shape above must contain: text with none of these holds no secret, and is spared the full search
# (a long text is read once, fast, instead of trying every shape at every character).
_HINTS = (*(f"{k}k{s}" for k in "spr" for s in "-_"), "akia", "asia", *(f"gh{c}_" for c in "pousr"), "github_pat_",
          "glpat-", "hf_", "xox", "aiza", "eyj", "-----begin", "authoriz", "bearer", "cookie", "pass", "pwd", "key",
          "secret", "token", "credential")


def _hinted(text: str) -> bool:
    low = text.lower()
    return any(hint in low for hint in _HINTS)


def _hide(match: re.Match[str]) -> str:
    """A secret's replacement: the marker, after the name that introduced it (if any), as it was written."""
    name = next((kept for kept in match.groupdict().values() if kept), "")
    return name + "[redacted]"


# For text a person writes for the model (errors.py), stricter still: 20 or more characters that mix upper
# case, lower case and digits with no separator are random, not an id. Not used by `redact`, which must
# leave recorded ids and fingerprints as they are.
_RANDOM = re.compile(r"\b(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{20,}\b")


@text_memo  # the error builder checks the same few hundred messages over and over in a sweep
def looks_secret(text: str) -> bool:
    """Whether `text` holds anything `redact` would hide, or a long random-looking token (read plain: a zero-width
    space or a fullwidth letter hides nothing)."""
    text = plain(text)
    return bool(_hinted(text) and _SECRET.search(text) or _RANDOM.search(text))


@text_memo  # a trace's tool names, ids and codes repeat in every episode (remembered in this process only)
def _redact_text(text: str) -> str:
    if not text.isascii():  # a key split by an invisible character is a key: redact the plain text instead
        flat = plain(text)
        if flat != text and (_hinted(flat) and _SECRET.search(flat) or _LOGIN_URL.search(flat)):
            return hide_login(_SECRET.sub(_hide, flat))
    return hide_login(_SECRET.sub(_hide, text) if _hinted(text) else text)


_Shape = TypeVar("_Shape", bound=Mapping[str, object])
_Item = TypeVar("_Item")


@overload
def redact(value: str) -> str: ...
@overload
def redact(value: _Shape) -> _Shape: ...
@overload
def redact(value: list[_Item] | tuple[_Item, ...]) -> list[_Item]: ...
@overload
def redact(value: object) -> object: ...
def redact(value: object) -> object:
    """Return `value` with every key-like string replaced by a marker, recursively.

    Strings, mappings (a record keeps its keys), lists and numbers keep their shape; anything else becomes
    its redacted str().
    """
    if isinstance(value, str):
        return _redact_text(value)
    if isinstance(value, Mapping):
        return {str(k): redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return redact(str(value))


PIECE = 6
"""The shortest piece of a known secret that redact_known hides: a note cut mid-secret keeps a piece."""


def redact_known(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with each of `secrets`, and any run of PIECE or more of its characters, replaced by a marker.

    For values known to be secret (the keys a grader removed from a kernel's environment): a message shortened
    before it reached here can hold the start of one, which a whole-value replace would let through.
    """
    spans: list[tuple[int, int]] = []
    for secret in secrets:
        if len(secret) < PIECE:
            continue
        for start in range(len(secret) - PIECE + 1):
            piece, at = secret[start:start + PIECE], 0
            while (at := text.find(piece, at)) != -1:
                end, more = at + PIECE, start + PIECE
                while end < len(text) and more < len(secret) and text[end] == secret[more]:
                    end, more = end + 1, more + 1
                spans.append((at, end))
                at += 1
    if not spans:
        return text
    out, last = [], 0
    for begin, end in sorted(spans):
        if begin >= last:
            out += [text[last:begin], "[redacted]"]
            last = end
        elif end > last:
            last = end
    return "".join(out) + text[last:]



# Environment variables named like a secret: keys, tokens, passwords (PASS, PWD), auth and session values, personal
# access tokens, a DSN or database URL (which carry a password). The shell's own PWD and OLDPWD are directories.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|PWD|AUTH|CREDENTIAL|COOKIE|SESSION|DSN|(?:^|_)PAT(?:_|$)"
                          r"|DATABASE_URL|^ANTHROPIC_", re.IGNORECASE)
_NOT_SECRET = frozenset({"PWD", "OLDPWD"})
# scheme://user:password@. A scheme is tried only where a run of scheme characters begins (the lookbehind), so the
# search is linear: tried at every letter, a long word took quadratic time (16,000 letters: 1.2 s). The match may
# take in the run's leading digits and signs, which hide_login keeps as they were.
_LOGIN_URL = re.compile(r"(?<![a-z0-9+.-])[0-9+.-]*[a-z][a-z0-9+.-]*://[^/\s@:]+:[^/\s@]+@", re.IGNORECASE)


def secret_variable(name: str, value: str) -> bool:
    """Whether an environment variable holds a secret: its name says so (KEY, TOKEN, SECRET, PASS, PWD, AUTH,
    CREDENTIAL, COOKIE, SESSION, DSN, PAT, DATABASE_URL, ANTHROPIC_*), or its value is an address with a password
    in it. What a process hands a program it does not trust (a server under audit, a learner's kernel) leaves
    these out."""
    if name.upper() in _NOT_SECRET:
        return False
    return bool(_SECRET_NAME.search(name) or _LOGIN_URL.search(value))


def secret_values(environ: Mapping[str, str], *, shortest: int = 6) -> tuple[str, ...]:
    """The values of `environ`'s secret variables (secret_variable) of at least `shortest` characters, longest
    first: what redact_known hides from anything written, since a key-shaped pattern alone misses most passwords."""
    found = {v for k, v in environ.items() if len(v) >= shortest and secret_variable(k, v)}
    return tuple(sorted(found, key=len, reverse=True))


def hide_login(text: str) -> str:
    """`text` with the user:password of every address in it (scheme://user:password@host) replaced by a marker."""
    return _LOGIN_URL.sub(lambda m: m.group().split("://", 1)[0] + "://[redacted]@", text)
