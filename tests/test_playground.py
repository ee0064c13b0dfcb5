"""The error playground, driven as a learner would: set the widgets, click Run, read the panel."""
from __future__ import annotations

import re

import pytest

LIMIT = "Refunds above $500.00 need a person's approval. Use escalate_to_human with queue billing_refunds."


@pytest.fixture(scope="module", autouse=True)
def playground_names() -> None:
    """Import the playground (ipywidgets and IPython) when a test here first runs, not at collection: every xdist
    worker collects this file."""
    global Playground, compose_error, next_move
    from atlas_kit.face.playground import Playground, compose_error, next_move


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)


def text(html: str) -> str:
    """The report's visible words: tags dropped, entities unescaped enough to match on."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'").replace("&quot;", '"')


def summary(p: Playground) -> str:
    return text(p.result.value.split('<div class="atlas-run">')[0])


def compose(p: Playground, ticket: str, **fields: str) -> None:
    p.ticket.value, p.style.value = ticket, "compose"
    for name, value in fields.items():
        getattr(p, name).value = value


def test_contract_style_on_t05_finishes_and_is_graded_correct():
    p = Playground(seed=0)
    p.ticket.value, p.style.value, p.fault.value = "T05", "contract", "own"
    p.run_button.click()
    assert p.last_run is not None and p.last_run.stop_reason == "finished"
    s = summary(p)
    assert "stop reason finished" in s
    assert "grade correct; labels: none" in s
    assert "it read branch stop from cue 'contract'" in s  # the reading that explains the move
    assert 'class="atlas-run"' in p.result.value  # the transcript is shown


def test_raw_style_makes_a_different_next_move_than_contract():
    moves = {}
    for style in ("contract", "raw"):
        p = Playground(seed=0)
        p.ticket.value, p.style.value = "T05", style
        run = p.run()
        moves[style] = next_move(run)["move"]
    assert moves["raw"] != moves["contract"]
    assert "no cue it can read" in summary(p)  # raw 403 text gives the stand-in nothing to follow
    assert "grade not correct" in summary(p)


def test_same_seed_gives_the_same_report():
    a, b = Playground(seed=3), Playground(seed=3)
    for p in (a, b):
        p.ticket.value, p.style.value = "T05", "generic"
        p.run()
    assert a.result.value == b.result.value


def test_a_branch_that_contradicts_the_code_shows_the_builders_message_and_does_not_run():
    p = Playground()
    compose(p, "T04", code="limit_exceeded", branch="retry_changed", argument="amount_cents",
            message=LIMIT, say="Lower the amount.")
    with pytest.raises(ValueError) as refused:
        compose_error("limit_exceeded", LIMIT, branch="retry_changed", argument="amount_cents", say="Lower the amount.")
    assert p.run() is None and p.last_run is None
    assert str(refused.value) in text(p.status.value)
    assert "contradicts limit_exceeded" in text(p.result.value)
    assert "atlas-run" not in p.result.value and "Traceback" not in p.result.value
    assert "The builder refuses" in p.preview.value  # shown before Run, too


def test_a_good_switch_tool_error_makes_the_stand_in_call_the_named_tool_next():
    p = Playground()
    compose(p, "T04", code="limit_exceeded", message=LIMIT, branch="switch_tool", tool="escalate_to_human",
            say="Escalate to billing_refunds, then tell the customer.")
    assert p.target.value == "issue_refund"
    run = p.run()
    seen = next_move(run)
    assert seen["tool"] == "issue_refund" and LIMIT in seen["error"].replace("\\u2019", "'")
    assert seen["move"].startswith("called escalate_to_human(")
    assert '"queue": "billing_refunds"' in seen["move"]
    assert "tool escalate_to_human" in summary(p)


def test_a_composed_error_fails_only_the_first_call():
    p = Playground()
    compose(p, "T03", code="upstream_unavailable", message="The refund service is busy. Do not repeat the refund.",
            branch="", say="")
    run = p.run()
    errors = run.tool_errors
    assert len(errors) == 1 and errors[0]["code"] == "upstream_unavailable"
    assert "branch stop from cue 'contract (not retryable, no next)'" in summary(p)


def test_retryable_follows_the_code_and_cannot_be_edited():
    p = Playground()
    assert p.retryable.disabled
    p.code.value = "invalid_argument"
    assert p.retryable.value is True and "allows next: retry_changed" in p.allowed.value
    p.code.value = "upstream_unavailable"
    assert p.retryable.value is False


def test_fault_choices_follow_the_tool_to_fail():
    p = Playground()
    p.ticket.value = "T01"
    assert p.target.value == "list_invoices" and "empty" in dict((v, k) for k, v in p.fault.options)
    p.target.value = "get_account"
    values = [v for _, v in p.fault.options]
    assert "empty" not in values and values[:2] == ["own", "none"]
    p.ticket.value = "T05"
    p.fault.value, p.style.value = "timeout", "contract"
    seen = next_move(p.run())
    assert seen["tool"] == "get_account" and '"error": "upstream_unavailable"' in seen["error"]
    first = p.last_run.tool_errors[0]["tool_use_id"]  # the harness retried three times before the model saw it
    assert [e["attempt"] for e in p.last_run.trace.of_kind("transient") if e["tool_use_id"] == first] == [1, 2, 3]


def test_no_error_says_so():
    p = Playground()
    p.ticket.value, p.fault.value = "T03", "none"
    run = p.run()
    assert next_move(run) is None and "none reached the model" in summary(p)


def test_the_panel_renders_and_says_simulated():
    p = Playground()
    bundle = p._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert p.run_button in p.panel.children[5].children and p.result in p.panel.children
    assert "simulated" in p.label.value and "simulated" in p.run_button.description
    assert p.composer.layout.display == "none"
    p.style.value = "compose"
    assert p.composer.layout.display is None and p.fault.disabled


def test_changing_a_setting_after_a_run_marks_the_result_stale():
    from atlas_kit.face.playground import Playground

    pg = Playground(seed=0)
    pg.ticket.value = "T05"
    assert "Settings changed" not in pg.status.value
    pg.run()
    assert "Settings changed" not in pg.status.value
    pg.style.value = "raw"
    assert "Settings changed" in pg.status.value
    pg.run()
    assert "Settings changed" not in pg.status.value
