"""An Atlas session driven by the real agent loop (scripted API, no network) grades like a replay."""
from __future__ import annotations

import pytest

from atlas_kit.agent import run_agent
from atlas_kit.atlas import atlas_session, grade
from atlas_kit.models.transport import ScriptedAPI, in_process_client
from atlas_kit.models.body import message_body

MODEL = "claude-sonnet-5-5"
USAGE = {"input_tokens": 100, "output_tokens": 20}


def _answers(session) -> list[dict]:
    """The ticket's script as the API's replies: one tool_use turn per batch, then the answer."""
    script = session.ticket.plan(faults=session.faults)
    out, n = [], 0
    for batch in script.batches():
        blocks = []
        for c in batch:
            n += 1
            blocks.append({"type": "tool_use", "id": f"toolu_{n:03d}", "name": c.tool, "input": dict(c.input)})
        out.append(message_body(blocks, model=MODEL, stop_reason="tool_use", usage=USAGE))
    final = script.answer(session.world, session.ticket.outcome(faults=session.faults).facts)
    out.append(message_body([{"type": "text", "text": final}], model=MODEL, stop_reason="end_turn", usage=USAGE))
    return out


@pytest.mark.parametrize("ticket_id", ["T04", "T09", "T10", "T14", "T19"])
def test_a_scripted_model_through_run_agent_is_graded_correct(ticket_id):
    session = atlas_session(ticket_id)
    api = ScriptedAPI(_answers(session))
    run = run_agent(in_process_client(api, max_retries=0), session, model=MODEL)
    assert run.stop_reason == "finished" and run.about is session and session.faults is True
    g = grade(run)
    assert g.correct and g.labels == (), g.reasons


def test_a_model_that_repeats_a_failing_call_is_stopped_and_graded_wrong():
    session = atlas_session("T11")  # the refund service is down on every attempt
    call = {"type": "tool_use", "id": "toolu_1", "name": "issue_refund",
            "input": {"invoice_id": "INV-20451", "amount_cents": 4500, "reason": "never worked"}}
    again = dict(call, id="toolu_2")
    api = ScriptedAPI([message_body([b], model=MODEL, stop_reason="tool_use", usage=USAGE) for b in (call, again)])
    run = run_agent(in_process_client(api, max_retries=0), session, model=MODEL)
    g = grade(run)
    assert run.stop_reason == "loop_broken" and "loop" in g.labels and not g.correct
