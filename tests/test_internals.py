"""atlas_kit.contract.internals: one definition of what is for the trace, used by the builder's guard and the rubric.

The builder now refuses the shapes issue 29 found passing (UPDATE/DELETE/INSERT, cloud database hosts, IPv6 with
a port, relative source paths, SQLSTATE codes, undotted exception classes, "password <value>") and still accepts
every message Atlas builds.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.contract import errors as E
from atlas_kit.atlas import catalogue
from atlas_kit.contract.internals import SCAN_CHARS, find_internals, has_internals

# (text, the kind it must be found as): each a shape a real server or library prints.
SHAPES = [
    ("UPDATE accounts SET balance = 0 WHERE id = 4", "SQL"),
    ("DELETE FROM invoices WHERE id = 9", "SQL"),
    ("INSERT INTO refunds (id, amount) VALUES (1, 2)", "SQL"),
    ("Query SELECT * FROM invoices failed.", "SQL"),
    ("could not reach prod-db.c9akciq32.us-east-1.rds.amazonaws.com", "host"),
    ("server atlas-prod.database.windows.net refused the login", "host"),
    ("connect to [2001:db8::1]:5432 failed", "host"),
    ("listening on [::1]:8080", "host"),
    ("Could not reach db-7.internal now.", "host"),
    ("error in app/services/billing.py", "file path"),
    ("see db.py:42 for the cause", "file path"),
    ("open '/srv/atlas/config.yaml' failed", "file path"),
    ("SQLSTATE[23000]: Integrity constraint violation", "database error code"),
    ("ORA-01722 invalid number.", "database error code"),
    ("KeyError", "exception class"),
    ("raised ZoneInfoNotFoundError while loading", "exception class"),
    ("sqlalchemy.exc.NoResultFound: No row was found", "exception class"),
    ("login failed: user admin password hunter2!", "key or password"),
    ("password 's3cret' was rejected", "key or password"),
    ("Field required [type=missing, input_value={}, input_type=dict]", "validation dump"),
    ("For further information visit https://errors.pydantic.dev/2.14/v/missing", "validation dump"),
    ("See https://docs.example.com/errors/42 for help", "URL"),
    ("ENOENT: no such file or directory", "OS error code"),
    ("[Errno 13] Permission denied", "OS error code"),
    ("MCP error -32602: Input validation error", "protocol error code"),
    ("HTTP 403 Forbidden", "HTTP status"),
    ("<html><body>500</body></html>", "HTML"),
    ("<object object at 0x7f3a2b1c4d50>", "memory address"),
    ('Traceback (most recent call last):\n  File "x.py", line 3', "traceback"),
    ("    at Object.<anonymous> (/app/index.js:10:5)", "traceback"),
]

# Sentences a good error says, several close to a pattern: none is an internal.
PLAIN = [
    "Argument account_id must look like ACC-4471. Change it and call the tool again.",
    "Select one timezone from the IANA list, such as Europe/London.",
    "The password must be at least 8 characters.",
    "Update the order, then set the address again.",
    "Use the time 14:30 in 24-hour format.",
    "Refunds above $500.00 need a person's approval, so this one was not issued.",
    "No time zone has that name; use an IANA name such as America/New_York.",
    "Delete it from the list only if the customer asks.",
]


@pytest.mark.parametrize("text,kind", SHAPES)
def test_each_shape_is_found_as_its_kind(text, kind):
    assert kind in [found.kind for found in find_internals(text)]
    assert has_internals(text)


@pytest.mark.parametrize("text", PLAIN)
def test_plain_sentences_are_not_internals(text):
    assert find_internals(text) == ()
    assert not has_internals(text)


@pytest.mark.parametrize("text,kind", SHAPES)
def test_the_builder_refuses_each_shape(text, kind):
    with pytest.raises(ValueError, match="contains internals"):
        E.tool_error("t", "upstream_unavailable", text[:280])


@pytest.mark.parametrize("text", PLAIN)
def test_the_builder_accepts_the_plain_sentences(text):
    assert E.tool_error("t", "invalid_argument", text).message == text


def test_every_contract_message_atlas_builds_is_still_accepted():
    rows = catalogue(seed=0)
    assert len(rows) >= 10
    for row in rows:
        assert not has_internals(row.contract), row.case
        assert has_internals(row.raw), row.case  # and every raw wording of the same failure is caught


def test_the_excerpt_is_short_and_one_per_kind():
    found = find_internals("KeyError KeyError ValueError " + "x" * 100 + " /a/b/" + "c" * 200)
    assert [f.kind for f in found] == ["exception class", "file path"]
    assert all(len(f.excerpt) <= 60 for f in found)


def test_only_the_first_scan_chars_are_searched():
    assert has_internals("a " * 10 + "KeyError")
    assert not has_internals("a" * SCAN_CHARS + " KeyError")


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(whitelist_categories=("Ll", "Zs")), max_size=200))
def test_lower_case_words_alone_are_never_internals(text):
    # Lower-case letters and spaces hold no path, host, class, code or statement: a pattern that fires on them
    # would refuse ordinary sentences.
    assert not has_internals(text)
