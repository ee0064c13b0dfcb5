"""hide_login and secret_variable find scheme://user:password@ as they did, now in linear time.

The pattern used to try a scheme at every letter, so a long word (an echoed argument in an audited server's
answer) cost quadratic time; now it starts only where a run of scheme characters starts. ORACLE is the old
pattern, kept here to say what the answer must be; benchmarks/redaction.py prints the time on long texts.
"""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.contract.redaction import hide_login, secret_variable

ORACLE = re.compile(r"[a-z][a-z0-9+.-]*://[^/\s@:]+:[^/\s@]+@", re.IGNORECASE)


def oracle_hide(text: str) -> str:
    return ORACLE.sub(lambda m: m.group().split("://", 1)[0] + "://[redacted]@", text)


def test_the_password_goes_and_the_address_stays():
    cases = {
        "postgres://atlas:s3cret@db.internal:5432/billing": "postgres://[redacted]@db.internal:5432/billing",
        "HTTPS://U:P@host": "HTTPS://[redacted]@host",
        "see 1http://bob:pw@host.": "see 1http://[redacted]@host.",  # the leading digit stays, as it did
        "x.y+z://a:b@c and git+ssh://me:tok@h": "x.y+z://[redacted]@c and git+ssh://[redacted]@h",
        "https://host/path?a=b@c": "https://host/path?a=b@c",  # no user:password before the host
        "https://user@host": "https://user@host",
        "42://a:b@c": "42://a:b@c",  # a scheme starts with a letter
    }
    for text, hidden in cases.items():
        assert hide_login(text) == hidden, text


def test_an_address_with_a_password_makes_any_variable_secret():
    assert secret_variable("UPSTREAM", "redis://default:hunter22@cache:6379")
    assert not secret_variable("UPSTREAM", "redis://cache:6379")


PIECES = st.sampled_from(["a", "Z", "h", "1", "+", ".", "-", ":", "/", "@", " ", "\n", "é", "ſ", "://", "x:y@"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_same_answer_as_the_old_pattern_on_any_text(text):
    assert hide_login(text) == oracle_hide(text)
    assert secret_variable("PLAIN", text) == bool(ORACLE.search(text))


def test_a_long_word_is_searched_whole():
    word = "x" * 200_000
    assert hide_login(word) == word
    assert hide_login(word + "://u:p@h") == word + "://[redacted]@h"
