"""Safe values: the only values a model-facing message may quote, and `say`, which fills a template with them.

A message never interpolates what the caller typed. The only values that may appear are ones the tool
itself produced or validated: integers, booleans, members of a closed set (an Enum), strings a validator
has matched against a strict pattern (an id that exists), and dollar amounts in the tool's own format
($1,250.00). Taught in chapter 08 (the echo surface).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from .redaction import looks_secret
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

_SAFE_STR = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9_.:\-]{0,39}|-?\$[0-9]{1,3}(?:,[0-9]{3})*\.[0-9]{2})$")
# Plain tokens still not safe to print: a host or IP with a port (a key is refused by looks_secret).
_HOST_PORT = re.compile(r"(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*):\d{2,5}\b")


@dataclass(frozen=True)
class Safe:
    """A value that passed validation and may appear in a model-facing message."""

    text: str

    def __str__(self) -> str:
        return self.text


def safe(value: object) -> Safe:
    """Mark a validated value as printable. Accepts int, bool, Enum, or a short plain token."""
    if isinstance(value, Safe):
        return value
    if isinstance(value, bool) or isinstance(value, int):
        return Safe(str(value))
    if isinstance(value, Enum):
        return Safe(str(value.value))
    if isinstance(value, str) and _SAFE_STR.match(value) and not (_HOST_PORT.search(value) or looks_secret(value)):
        return Safe(value)
    raise AtlasKitValueError("safe() accepts an int, a bool, an Enum member, an amount like $1,250.00, or a plain token of at "
                     "most 40 letters, digits and ._:- that is neither a host:port nor shaped like a key; validate "
                     "the value first or refer to the argument by its name instead.")


def say(template: str, **values: Safe | int) -> str:
    """Fill a message template with safe values only; a plain string value is refused."""
    for name, value in values.items():
        if not isinstance(value, (Safe, int)) or isinstance(value, bool):
            raise AtlasKitTypeError(
                f"say(): value {name!r} is a {type(value).__name__}; wrap a validated value in safe() "
                "or name the argument instead of echoing it."
            )
    return template.format(**{k: str(v) for k, v in values.items()})
