from __future__ import annotations

import json

import jsonschema
import pytest

from atlas_kit.atlas import atlas_session
from atlas_kit.atlas.styles import CASES, as_markdown, catalogue
from atlas_kit.dispatch.styles import contract_style
from atlas_kit.dispatch.styles import GENERIC_PREFIX, STYLES, generic_style, plain_style, raw_style, style_named
from atlas_kit.contract.errors import ErrorCode, error_schema


@pytest.fixture(scope="module")
def rows():
    return catalogue()


def _failure(ticket: str, tool: str, args: dict):
    s = atlas_session(ticket)
    return s.dispatcher.dispatch([{"type": "tool_use", "id": "toolu_x", "name": tool, "input": args}]).failures[0]


def test_every_style_of_one_failure():
    failure = _failure("T04", "issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "cancelled"})
    raw, generic, contract = raw_style(failure), generic_style(failure), contract_style(failure)
    plain = plain_style(failure)
    assert plain["content"] == "This refund is above the $500.00 limit, so it was not issued."
    for block in (raw, generic, plain, contract):
        assert block["type"] == "tool_result" and block["is_error"] is True and block["tool_use_id"] == "toolu_x"
    assert raw["content"] == "ValueError: amount 65000 exceeds REFUND_CEILING_CENTS=50000"
    assert generic["content"] == f"{GENERIC_PREFIX} {raw['content']}"
    assert contract == failure.error.block() and json.loads(contract["content"])["next"]["tool"] == "escalate_to_human"


def test_generic_wraps_only_the_last_line_of_a_traceback():
    s = atlas_session("T21", style="generic")
    out = s.dispatcher.dispatch([{"type": "tool_use", "id": "t", "name": "query_warehouse",
                                  "input": {"sku": "SKU-3300", "date_from": "2024-12-01", "date_to": "2024-12-31", "region": "east"}}])
    text = out.results[0]["content"]
    assert text.startswith(GENERIC_PREFIX) and "TimeoutError" in text and "Traceback" not in text
    assert "Traceback" in out.failures[0].raw


def test_style_named():
    assert style_named("raw") is raw_style and set(STYLES) == {"raw", "generic", "plain", "contract"}
    assert style_named("plain") is plain_style
    assert style_named(contract_style) is contract_style
    with pytest.raises(ValueError, match="style 'html'"):
        style_named("html")


def test_catalogue_covers_every_code_and_branch(rows):
    assert len(rows) == len(CASES) >= 12
    assert {r.code for r in rows} == {c.value for c in ErrorCode}
    assert {r.branch for r in rows} == {"retry_changed", "switch_tool", "stop"}


def test_catalogue_contract_texts_are_valid_bodies_free_of_internals(rows):
    schema = error_schema()
    for r in rows:
        body = json.loads(r.contract)
        jsonschema.validate(body, schema)
        assert body["error"] == r.code
        for leak in ("Traceback", "ORA-", "psycopg", "<html", ".internal", "REFUND_CEILING", "sqlalchemy"):
            assert leak not in r.contract, (r.case, leak)
        assert r.generic.startswith(GENERIC_PREFIX)


def test_catalogue_raw_texts_show_what_libraries_say(rows):
    raws = " ".join(r.raw for r in rows)
    for sample in ("ORA-01839", "psycopg.errors.QueryCanceled", "Traceback (most recent call last)", "<html>",
                   "429 Too Many Requests", "Retry-After: 30", "KeyError: 'ACC-6601'"):
        assert sample in raws, sample


def test_as_markdown_has_one_line_per_failure(rows):
    table = as_markdown(rows, width=40)
    lines = table.splitlines()
    assert len(lines) == len(rows) + 2 and lines[0] == "| failure | code / branch | raw | generic | plain | contract |"
    assert all(line.count(" | ") == 5 for line in lines[2:])
    assert all(len(cell) <= 42 for line in lines[2:] for cell in line.split(" | ")[2:])
