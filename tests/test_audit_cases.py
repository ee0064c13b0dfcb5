"""atlas_kit.bridges.audit.cases and user_cases: the failing calls a schema suggests, each marked valid or not, and the
--cases file format with its one-line refusals."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.contract.arguments import check_arguments
from atlas_kit.atlas import atlas_session
from atlas_kit.bridges.audit.cases import CANARY, CASE_KINDS, LONG_CHARS, cases_for, sample
from atlas_kit.bridges.audit.user_cases import CasesFileError, read_cases

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["account_id", "status"],
          "properties": {"account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"]},
                         "status": {"type": "string", "enum": ["paid", "unpaid"]},
                         "note": {"type": "string", "maxLength": 40},
                         "limit": {"type": "integer", "minimum": 1}}}


def by_kind(cases):
    out = {}
    for c in cases:
        out.setdefault(c.kind, []).append(c)
    return out


def test_each_kind_the_schema_allows_is_made_and_each_breaks_the_schema():
    cases = by_kind(cases_for("list_invoices", SCHEMA))
    assert set(cases) == {"missing", "wrong_type", "unknown_argument", "outside_enum", "below_minimum", "pattern",
                          "too_long", "canary"}
    assert cases["below_minimum"][0].arguments["limit"] == 0 and cases["below_minimum"][0].argument == "limit"
    assert CANARY in cases["pattern"][0].arguments["account_id"] and cases["pattern"][0].argument == "account_id"
    assert [sorted(c.arguments) for c in cases["missing"]] == [["status"], ["account_id"]]  # each required left out
    assert {c.why.split()[0] for c in cases["wrong_type"]} == {"account_id", "status", "note", "limit"}
    assert cases["wrong_type"][0].arguments["account_id"] == 12345 and CANARY in cases["wrong_type"][3].arguments["limit"]
    assert len(cases["too_long"][1].arguments["note"]) == 41  # one past maxLength
    assert len(cases["too_long"][0].arguments["account_id"]) == LONG_CHARS  # no maxLength: a very long one
    assert all(CANARY in json.dumps(c.arguments) for c in cases["canary"] + cases["outside_enum"])
    for c in cases_for("list_invoices", SCHEMA):
        assert c.valid is (check_arguments(SCHEMA, c.arguments) is None)
        assert not c.valid, c.why  # additionalProperties false, a pattern, an enum: every case breaks the schema


def test_a_case_the_schema_allows_is_marked_valid():
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}
    kinds = {c.kind: c.valid for c in cases_for("t", schema)}
    assert kinds == {"missing": False, "wrong_type": False, "unknown_argument": True, "too_long": True, "canary": True}


def test_kinds_are_interleaved_so_a_cap_keeps_variety():
    first = [c.kind for c in cases_for("t", SCHEMA)][:8]
    assert first == ["missing", "wrong_type", "unknown_argument", "outside_enum", "below_minimum", "pattern",
                     "too_long", "canary"]
    assert [k for k in CASE_KINDS if k in first] == first


def test_every_atlas_tool_gets_cases_and_its_base_is_valid():
    for definition in atlas_session("T01").tools():
        cases = cases_for(definition["name"], definition["input_schema"])
        assert {"missing", "wrong_type", "unknown_argument"} <= {c.kind for c in cases}, definition["name"]


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.sampled_from([{"type": "string"}, {"type": "integer", "minimum": 3}, {"type": "boolean"},
                                     {"type": "string", "format": "date"}, {"type": "string", "minLength": 12},
                                     {"enum": ["a", "b"]}, {"type": "number"}]),
                    lambda inner: st.builds(lambda p: {"type": "object", "properties": p, "required": sorted(p)},
                                            st.dictionaries(st.sampled_from("abcd"), inner, max_size=3)),
                    max_leaves=6))
def test_sample_satisfies_any_schema_without_a_pattern(schema):
    wrapped = {"type": "object", "properties": {"x": schema}, "required": ["x"]}
    assert check_arguments(wrapped, {"x": sample(schema)}) is None


JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**9) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["type", "properties", "required", "enum", "maxLength", "minLength", "items",
                                         "minItems", "anyOf", "pattern", "format", "a"]), inner, max_size=4),
                    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["type", "properties", "required", "additionalProperties"]), JSON, max_size=4))
def test_any_schema_a_server_lists_gives_cases_without_raising(schema):
    # A server's schema is untrusted input: malformed keywords, wrong types, absurd sizes.
    cases = cases_for("t", {"type": "object", **schema})
    assert all(len(json.dumps(c.arguments, default=str)) < 200_000 for c in cases)


def test_a_cases_file_in_jsonl_or_as_a_list(tmp_path):
    line = {"tool": "get_invoice", "arguments": {"invoice_id": "INV-0000"}, "why": "no invoice has this id"}
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text("# my cases\n" + json.dumps(line) + "\n\n" + json.dumps({"tool": "x"}) + "\n")
    listed = tmp_path / "c.json"
    listed.write_text(json.dumps([line]))
    cases = read_cases(jsonl)
    assert [(c.tool, c.kind, c.why) for c in cases] == [("get_invoice", "user", "no invoice has this id"),
                                                         ("x", "user", "your case")]
    assert read_cases(listed)[0].arguments == {"invoice_id": "INV-0000"}


@pytest.mark.parametrize("text,words", [
    ("{not json", "line 1: not valid JSON"),
    ('["a"]', "entry 1: is a JSON str"),
    ('{"tool": 5}', "'tool' must be the name of a tool"),
    ('{"tool": "t", "arguments": [1]}', "'arguments' must be a JSON object"),
    ('{"tool": "t", "argumnets": {}}', "a key the format does not know ('argumnets')"),
    ("", "holds no case"),
])
def test_a_bad_cases_file_is_refused_in_one_line_saying_what_to_write(tmp_path, text, words):
    path = tmp_path / "c.jsonl"
    path.write_text(text)
    with pytest.raises(CasesFileError) as caught:
        read_cases(path)
    message = str(caught.value)
    assert words in message and "\n" not in message and '"tool": "get_invoice"' in message


def test_a_missing_cases_file_is_one_line(tmp_path):
    with pytest.raises(CasesFileError, match="cannot read it"):
        read_cases(tmp_path / "nope.jsonl")


def test_bounds_patterns_and_formats_each_get_a_case_just_past_them():
    schema = {"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 50}, "x": {"type": "number", "exclusiveMaximum": 2.5},
        "day": {"type": "string", "format": "date"}, "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "odd": {"type": "string", "pattern": "(?<=x"}}}
    cases = by_kind(cases_for("t", schema))
    assert [c.arguments["n"] for c in cases["below_minimum"]] == [0]
    assert [c.arguments[c.argument] for c in cases["above_maximum"]] == [51, 2.5]
    assert not any(c.valid for k in ("below_minimum", "above_maximum", "pattern") for c in cases[k])
    assert [c.argument for c in cases["pattern"]] == ["code"]  # a pattern Python cannot read gets no case
    (fmt,) = cases["format"]
    assert fmt.argument == "day" and CANARY in fmt.arguments["day"] and fmt.valid  # format only annotates
    assert all(c.argument in schema["properties"] or c.kind == "unknown_argument" for c in cases_for("t", schema))
