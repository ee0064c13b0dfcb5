"""atlas_kit.bridges.audit.run and report: the plan within the bounds and the side-effect rule, what each kind of reply
becomes, the scores as the formula says, and a report that escapes what a hostile server sends."""
from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pytest

from atlas_kit.bridges.audit.cases import Case
from atlas_kit.bridges.audit.html import render_html
from atlas_kit.bridges.audit.report import clip, render_text, to_json, worst
from atlas_kit.bridges.audit.run import Limits, plan, run_audit
from atlas_kit.bridges.audit.targets import Reply, ToolInfo
from atlas_kit.contract.rubric import tool_score

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}
CONTRACT = json.dumps({"error": "invalid_argument", "message": "Argument q must be a string.", "retryable": True,
                       "next": {"branch": "retry_changed", "say": "Fix q and call again.", "argument": "q"}})


@dataclass
class Fake:
    """A target that answers every call with `answer(tool, args)`; it records what it was asked."""

    tools: list[ToolInfo]
    answer: object
    label: str = "fake server"
    connect_timeout: float = 5.0
    calls: list[tuple[str, dict]] = field(default_factory=list)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return None

    async def list_tools(self):
        return self.tools

    async def call(self, tool, arguments, *, timeout):
        self.calls.append((tool, arguments))
        return self.answer(tool, arguments)


def audit(target, **options):
    return asyncio.run(run_audit(target, **options))


def contract(tool, args):
    return Reply("result", CONTRACT, True, 0.01)


def test_a_tool_that_may_change_state_gets_only_calls_that_break_its_schema():
    loose = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    writer, reader = ToolInfo("write", "w", loose, read_only=False), ToolInfo("read", "r", loose, read_only=True)
    kinds = {t.name: [(o.case.kind, o.kind) for o in audit(Fake([writer, reader], contract)).tools[i].outcomes]
             for i, t in enumerate((writer, reader))}
    assert ("canary", "skipped") in kinds["write"] and ("unknown_argument", "skipped") in kinds["write"]
    reasons = {o.reason for o in audit(Fake([writer], contract)).tools[0].outcomes if o.kind == "skipped"}
    assert reasons == {"its arguments satisfy the schema, so it would run the tool, and the server says the tool "
                       "changes state and may be destructive (readOnlyHint false); --allow-side-effects runs it"}
    assert ("missing", "judged") in kinds["write"]
    assert all(outcome == "judged" for _, outcome in kinds["read"])
    allowed = audit(Fake([writer], contract), limits=Limits(allow_side_effects=True)).tools[0]
    assert all(o.kind == "judged" for o in allowed.outcomes)


def test_no_tool_gets_more_calls_than_the_limit():
    tool = ToolInfo("t", "t", {"type": "object", "properties": {k: {"type": "string"} for k in "abcdefgh"},
                               "required": list("abcdefgh")}, read_only=True)
    target = Fake([tool], contract)
    done = audit(target, limits=Limits(calls_per_tool=3)).tools[0]
    assert len(target.calls) == 3 and sum(o.kind == "judged" for o in done.outcomes) == 3
    assert any("over the limit of 3 calls" in o.reason for o in done.outcomes)


def test_your_cases_run_first_and_a_case_for_a_missing_tool_is_reported():
    tool = ToolInfo("t", "t", SCHEMA, read_only=False)
    mine = [Case("t", "user", {"q": "ACC-0000"}, "no such account", valid=False), Case("zz", "user", {}, "x", False)]
    target = Fake([tool], contract)
    done = audit(target, cases=mine, limits=Limits(allow_side_effects=True))
    assert target.calls[0] == ("t", {"q": "ACC-0000"}) and done.tools[0].outcomes[0].case.valid is True
    assert [c.tool for c in done.unmatched] == ["zz"]
    skipped = plan(tool, mine[:1], Limits())[0]  # valid arguments on a tool that may change state: not run
    assert not isinstance(skipped, Case) and skipped.kind == "skipped"


def test_each_kind_of_reply_becomes_its_outcome():
    replies = iter([Reply("protocol_error", "Invalid params", True, 0.0, -32602), Reply("timeout", "", None, 1.0),
                    Reply("result", '{"ok": true}', False, 0.0), Reply("invalid", "not a result", None, 0.0),
                    Reply("closed", "Connection closed", None, 0.0, -32000)])
    tool = ToolInfo("t", "t", {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                               "required": ["q"], "additionalProperties": False}, read_only=True)
    done = audit(Fake([tool], lambda t, a: next(replies)))
    kinds = [o.kind for o in done.tools[0].outcomes]
    assert kinds[:5] == ["judged", "timeout", "judged", "invalid", "crashed"] and set(kinds[5:]) == {"not_run"}
    protocol = done.tools[0].outcomes[0].judgement
    assert protocol.verdict("is_error").status == "fail" and "SEP-1303" in protocol.verdict("is_error").reason
    accepted_bad = done.tools[0].outcomes[2]  # a success to a call that breaks the schema fails is_error
    assert not accepted_bad.case.valid and accepted_bad.judgement.failed == ("is_error",)
    assert done.closed and "closed the connection" in done.stopped and done.failure == done.stopped
    scores = [100 * o.judgement.score for o in done.tools[0].outcomes if o.judgement] + [0.0, 0.0, 0.0]
    assert done.tools[0].score == pytest.approx(sum(scores) / len(scores))  # timeout, invalid, crashed: 0 each


def test_a_success_to_a_call_the_schema_allows_is_not_judged():
    loose = ToolInfo("t", "t", {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                     read_only=True)
    done = audit(Fake([loose], lambda t, a: Reply("result", "{}", False, 0.0))).tools[0]
    valid = [o for o in done.outcomes if o.case.valid]
    assert valid and all(o.kind == "accepted" and o.judgement is None for o in valid)


def test_the_time_limit_stops_the_audit():
    ticks = iter(range(0, 1000, 50))
    tool = ToolInfo("t", "t", SCHEMA, read_only=True)
    done = audit(Fake([tool], contract), limits=Limits(total_seconds=60), clock=lambda: float(next(ticks)))
    assert "total time limit of 60 s" in done.stopped and not done.closed
    assert sum(o.kind == "judged" for o in done.tools[0].outcomes) == 1


def test_scores_are_the_rubrics_formula():
    raw = lambda t, a: Reply("result", "KeyError: 'q'", True, 0.0)  # noqa: E731
    tools = [ToolInfo("a", "a", SCHEMA, read_only=True), ToolInfo("b", "b", SCHEMA, read_only=True)]
    done = audit(Fake(tools, lambda t, a: contract(t, a) if t == "a" else raw(t, a)))
    a, b = done.tools
    assert a.score == tool_score(a.judgements) and a.score < 100  # one body for every case: a fixed reply
    assert b.score is not None and b.score < 50 and done.score == pytest.approx((a.score + b.score) / 2)
    doc = to_json(done)
    assert doc["score"] == round(done.score, 1) and [t["score"] for t in doc["tools"]] == [round(a.score, 1),
                                                                                            round(b.score, 1)]
    assert doc["tools"][1]["rules"]["code"]["fail"] == len(b.judgements) and "mean of its tools" in doc["formula"]
    assert set(worst(done)) >= {"structure", "code", "internals"}


HOSTILE = "<script>alert(1)</script> sk-ant-api03-" + "A" * 30


def test_the_report_escapes_and_redacts_what_the_server_sent():
    tool = ToolInfo("t<b>", "t", SCHEMA, read_only=True)
    done = audit(Fake([tool], lambda t, a: Reply("result", HOSTILE, True, 0.0)))
    page, text, doc = render_html(to_json(done)), render_text(done), json.dumps(to_json(done))
    assert "<script>" not in page and "&lt;script&gt;" in page and "t&lt;b&gt;" in page
    for out in (page, text, doc):
        assert "sk-ant-api03" not in out
    assert "server score" in text and "✗" in text


def test_one_answer_for_every_call_is_pointed_out():
    tools = [ToolInfo(n, n, SCHEMA, read_only=True) for n in "abc"]
    assert "all 15 answers were the same text" in render_text(audit(Fake(tools, contract)))
    varied = Fake(tools, lambda t, a: Reply("result", CONTRACT.replace("q must", f"{t} must"), True, 0.0))
    assert "same text" not in render_text(audit(varied))


def test_clip_cuts_between_words_and_says_how_long_the_text_was():
    assert clip("a  b\nc", 10) == "a b c"
    assert clip("word " * 50, 30).endswith("(249 characters)") and len(clip("word " * 50, 30)) < 60
    assert clip("x" * 5000, 40).startswith("x" * 30) and "5,000 characters" in clip("x" * 5000, 40)


def test_a_long_tool_name_is_cut_to_its_column_and_every_row_lines_up():
    names = ["short", "trigger-long-running-operation-with-progress", "x" * 28, "y" * 29]
    tools = [ToolInfo(n, "d", SCHEMA, read_only=True) for n in names]
    text = render_text(audit(Fake(tools, contract)))
    header = next(line for line in text.splitlines() if line.startswith("tool "))
    rows = [line for line in text.splitlines() if any(line.startswith(n[:20]) for n in names)]
    assert len(rows) == len(names)
    assert {row.index("  ", 28) for row in rows} == {header.index("  ", 28)}  # the score column starts alike
    assert "trigger-long-running-operat…" in text and "x" * 28 + " " in text and "y" * 27 + "…" in text
