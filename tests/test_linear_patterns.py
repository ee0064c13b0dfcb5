"""Patterns that read long texts give the answers they gave, now in linear time.

Each used to try a match at every position inside a run (of scheme letters, of white space, of name characters),
so one long run cost quadratic time: 16,000 letters took hide_login 1.2 s, 20,000 spaces took the claim reader's
clause split 22 s, and 20,000 characters of "a.a.a." took the internals guard 12 s. Each now starts only where a
run starts, or (the guard's host names, file names and dotted paths) reads a bounded length from each start. The
old patterns are kept here as oracles: on any text the new ones must answer as they did (within the guard's
bounds). benchmarks/long_text.py prints their times on long texts.
"""
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.atlas import claims
from atlas_kit.contract import internals
from atlas_kit.contract.redaction import hide_login, secret_variable
from atlas_kit.course.grading import collect

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


@settings(max_examples=200, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_same_answer_as_the_old_pattern_on_any_text(text):
    assert hide_login(text) == oracle_hide(text)
    assert secret_variable("PLAIN", text) == bool(ORACLE.search(text))


def test_a_long_word_is_searched_whole():
    word = "x" * 200_000
    assert hide_login(word) == word
    assert hide_login(word + "://u:p@h") == word + "://[redacted]@h"


OLD_CLAUSES = re.compile(r",?\s+(?:but|so|and|however|although|though|because|since|while|whereas)\s+|,\s+|:\s+|"
                         r"\s+[—–-]\s+", re.I)
CLAUSE_PIECES = st.sampled_from([" ", "  ", "\n", "\t", ",", ":", "-", "—", "but", "And", "so", "x", "refund", "."])


@settings(max_examples=200, deadline=None)
@given(st.lists(CLAUSE_PIECES, max_size=40).map("".join))
def test_clauses_break_where_they_did(text):
    assert claims._CLAUSES.split(text) == OLD_CLAUSES.split(text)


def test_a_long_run_of_white_space_is_one_break():
    assert claims._CLAUSES.split("refunded" + " " * 200_000 + "- and done") == ["refunded", "and done"]


OLD_KEY_NAME = re.compile(r"[A-Za-z0-9_]*API_KEY|(?<![\w.])\.env\b")
KEY_PIECES = st.sampled_from(["API_KEY", "_", "A", "x", "9", ".", ".env", " ", "(", "é", "KEY", "API"])


@settings(max_examples=200, deadline=None)
@given(st.lists(KEY_PIECES, max_size=30).map("".join))
def test_key_names_are_found_as_they_were(code):
    assert collect._KEY_NAME.findall(code) == OLD_KEY_NAME.findall(code)


def test_a_long_name_in_a_cell_is_read_whole():
    blob = "a1" * 100_000
    assert collect._KEY_NAME.findall(f"x = '{blob}'\nos.environ['{blob}_API_KEY']") == [f"{blob}_API_KEY"]


BOUNDS = (("{1,63}", "+"), ("{0,63}", "*"), ("{1,16}", "+"), ("{0,16}", "*"), ("{1,255}", "+"))


def _unbounded(pattern: str) -> str:
    for bound, unbounded in BOUNDS:
        pattern = pattern.replace(bound, unbounded)
    return pattern


OLD_INTERNALS = re.compile(_unbounded(internals.INTERNALS.pattern))  # the guard as it was before its bounds
INTERNAL_PIECES = st.sampled_from(["a", "B", "7", "-", ".", "_", "/", ":", " ", "internal", "amazonaws.com", "py",
                                   ":8080", "Error", "java.", "Null", "x.Y"])


def test_the_oracle_is_the_guard_without_its_bounds():
    assert OLD_INTERNALS.pattern != internals.INTERNALS.pattern
    assert all(bound not in OLD_INTERNALS.pattern for bound, _ in BOUNDS)


@settings(max_examples=300, deadline=None)
@given(st.lists(INTERNAL_PIECES, max_size=12).map("".join).filter(lambda text: len(text) <= 30))
def test_the_internals_guard_finds_what_it_found_within_the_bounds(text):
    """Texts of at most 30 characters hold at most 15 labels or parts, within every bound."""
    assert [(m.span(), m.lastgroup) for m in internals.INTERNALS.finditer(text)] == \
        [(m.span(), m.lastgroup) for m in OLD_INTERNALS.finditer(text)]


def test_real_names_past_the_old_shapes_are_still_internals():
    cases = {"db-7.atlas.internal": "host", "orders.cluster-x1.eu-west-1.rds.amazonaws.com": "host",
             "redis-2.prod:6379": "host", "handler.py:88": "file path",
             "java.lang.NullPointerException": "exception class",
             "requests.exceptions.ConnectionError": "exception class"}
    for text, kind in cases.items():
        assert [i.kind for i in internals.find_internals(f"It failed at {text} today.")][:1] == [kind], text


def test_a_long_run_of_labels_is_searched_whole():
    long_name = "a." * 9_000 + "rds.amazonaws.com"
    assert [i.kind for i in internals.find_internals(long_name)] == ["host"]
    assert internals.find_internals("a-" * 10_000) == ()
