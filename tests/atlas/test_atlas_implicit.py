"""Implicit failures: the 2x2 tickets, the silent and explicit wrong results, the grader's silent_wrong,
and the stand-in's rule for a result marked incomplete (chapter 14)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from atlas_kit.agent import run_agent
from atlas_kit.models.standin.model import STANDIN_SOURCE
from atlas_kit.atlas import ALL_TICKETS, TICKETS, Fault, atlas_session, grade, play, ticket
from atlas_kit.atlas.faults import CELLS, cell_of
from atlas_kit.atlas.silent import IMPLICIT_KINDS
from atlas_kit.atlas.tickets import IMPLICIT_TICKETS
from atlas_kit.atlas.grade import SimpleRun
from atlas_kit.atlas.faults import always
from atlas_kit.atlas.grade import SILENT_WRONG
from atlas_kit.atlas.silent import CAVEATS, STALE_AS_OF, figures, mentioned
from atlas_kit.models.standin.model import OFFLINE_MODEL, offline_client
from atlas_kit.models.standin.planner import Goal

PAID = {"account_id": "ACC-5120", "status": "paid"}
NOW_NORTH = {"sku": "SKU-2041", "date_from": "2024-12-31", "date_to": "2024-12-31", "region": "north"}
OWED = {"account_id": "ACC-6610", "status": "unpaid"}


def body(block: dict) -> dict:
    return json.loads(block["content"])


# --- the tickets ----------------------------------------------------------------------------

def test_the_core_27_are_untouched_and_the_implicit_tickets_are_kept_apart():
    assert list(TICKETS) == [f"T{i:02d}" for i in range(1, 28)]
    assert list(IMPLICIT_TICKETS) == [f"T{i}" for i in range(28, 40)]
    assert list(ALL_TICKETS) == list(TICKETS) + list(IMPLICIT_TICKETS)
    assert ticket("T35") is IMPLICIT_TICKETS["T35"] and ticket("T03") is TICKETS["T03"]
    with pytest.raises(KeyError, match="T01 to T39"):
        ticket("T40")
    assert not any(f.kind in IMPLICIT_KINDS for t in TICKETS.values() for f in t.faults)


def test_each_cell_is_exercised_by_three_questions_and_each_implicit_kind_appears():
    cells = [cell_of(t.faults) for t in IMPLICIT_TICKETS.values()]
    assert sorted(cells, key=CELLS.index) == [c for c in CELLS for _ in range(3)]
    assert {f.kind for t in IMPLICIT_TICKETS.values() for f in t.faults} == {*IMPLICIT_KINDS, "outage"}
    for t in IMPLICIT_TICKETS.values():  # the four cells of one question share its words
        first = int(t.id[1:]) - (int(t.id[1:]) - 28) % 4
        assert t.message == IMPLICIT_TICKETS[f"T{first}"].message
    assert cell_of([]) is None and cell_of([always("get_order", "outage"), Fault("list_invoices", "truncated")]) is None


@pytest.mark.parametrize("style", ["raw", "contract"])
@pytest.mark.parametrize("faults", [True, False], ids=["faults", "clean"])
@pytest.mark.parametrize("t", list(IMPLICIT_TICKETS.values()), ids=list(IMPLICIT_TICKETS))
def test_the_script_of_every_implicit_ticket_is_graded_correct(t, faults, style):
    s = atlas_session(t, faults=faults, style=style)
    g = grade(play(s))
    assert g.correct and g.labels == (), (t.id, g.reasons)
    errors = s.trace.of_kind("error")
    outcome = t.outcome(faults=faults)
    assert tuple(e["code"] for e in errors) == outcome.codes and tuple(e["branch"] for e in errors) == outcome.branches
    implicit = faults and cell_of(t.faults)[0] == "implicit"
    assert bool(s.trace.of_kind("silent_fault")) == implicit


# --- the wrong results: silent in raw, explicit in contract ----------------------------------

@pytest.mark.parametrize("tid,tool,args,wrong", [("T31", "list_invoices", PAID, ["$798.00", "2"]),
                                                 ("T39", "list_invoices", OWED, ["$0.00", "0"])])
def test_a_silent_list_looks_like_a_true_answer_and_the_explicit_one_says_what_is_missing(caller, tid, tool, args, wrong):
    clean, _ = caller(tid, faults=False)(tool, **args)
    silent_call = caller(tid, style="raw")
    silent, failure = silent_call(tool, **args)
    assert failure is None and "is_error" not in silent
    assert set(body(silent)) - {"note", "count", "invoices"} <= set(body(clean)) and "complete" not in body(silent)
    assert body(silent) != body(clean)
    event, = silent_call.session.trace.of_kind("silent_fault")
    assert event["wrong"] == wrong and event["explicit"] is False
    explicit, failure = caller(tid, style="contract")(tool, **args)
    b = body(explicit)
    assert failure is None and b["complete"] is False and b["total_amount"] is None
    assert b["count"] == body(clean)["count"] or b["count"] is None
    if tid == "T31":
        assert (b["count"], b["returned"], len(b["invoices"])) == (3, 2, 2)


def test_a_stale_figure_keeps_the_asked_date_when_silent_and_says_as_of_when_explicit(caller):
    clean, _ = caller("T35", faults=False)("query_warehouse", **NOW_NORTH)
    silent, _ = caller("T35", style="generic")("query_warehouse", **NOW_NORTH)
    explicit, _ = caller("T35", style="contract")("query_warehouse", **NOW_NORTH)
    c, s, e = body(clean), body(silent), body(explicit)
    assert s["on_hand_date"] == c["on_hand_date"] == "2024-12-31" and s["on_hand"] != c["on_hand"]
    assert e["as_of"] == e["on_hand_date"] == STALE_AS_OF.isoformat() == "2024-12-01" and e["complete"] is False
    assert e["on_hand"] == s["on_hand"]  # the explicit form hides nothing: it dates what it has


def test_a_stale_fault_changes_nothing_for_a_range_the_replica_already_holds(caller):
    c = caller("T35")
    old = dict(NOW_NORTH, date_from="2024-06-01", date_to="2024-06-30")
    result, _ = c("query_warehouse", **old)
    assert "complete" not in body(result) and c.session.schedule.fired == [] and not c.session.trace.of_kind("silent_fault")


def test_an_implicit_fault_on_a_call_that_fails_anyway_does_not_fire(caller):
    c = caller("T31", style="raw")
    result, failure = c("list_invoices", account_id="ACC-4471")  # acme's account, not globex's
    assert failure.error.code.value == "not_permitted" and c.session.schedule.fired == []
    one_row, _ = c("list_invoices", account_id="ACC-4472")  # one row: nothing to cut
    assert body(one_row)["count"] == 1 and c.session.schedule.fired == []
    cut, _ = c("list_invoices", **PAID)
    assert body(cut)["count"] == 2 and [f["kind"] for f in c.session.schedule.fired] == ["truncated"]


@pytest.mark.parametrize("bad,match", [(dict(tool="get_account", kind="stale"), "query_warehouse"),
                                       (dict(tool="list_invoices", kind="stale"), "query_warehouse"),
                                       (dict(tool="issue_refund", kind="truncated"), "list_invoices"),
                                       (dict(tool="query_warehouse", kind="empty_wrong", after_effect=True), "after_effect"),
                                       (dict(tool="list_invoices", kind="silent"), "truncated")])
def test_a_misplaced_implicit_fault_is_refused_with_the_fix_named(bad, match):
    with pytest.raises(ValueError, match=match):
        Fault(**bad)


# --- figures and the grader -----------------------------------------------------------------

def test_figures_and_mentions_tell_a_figure_from_digits_inside_ids_dates_and_amounts():
    assert figures({"count": 2, "total": "$798.00", "note": "3 rows", "ok": True, "rows": [{"n": 7}]}) == {"2", "$798.00", "7"}
    text = "INV-20432 of 2024-12-01 came to $1,038, that is 1,030 units; 2 invoices."
    assert mentioned(text, "$1,038.00") and mentioned(text, "1030") and mentioned(text, "2")
    assert not mentioned(text, "20432") and not mentioned(text, "12") and not mentioned(text, "038") \
        and not mentioned(text, "$798.00") and not mentioned("ACC-5120 on 2024-12-01", "1")


def _answer(tid: str, text: str, *, style: str = "raw", turns: int = 1) -> tuple[bool, tuple[str, ...]]:
    s = atlas_session(tid, style=style)
    look = IMPLICIT_TICKETS[tid].script.batches()[0][0]
    g = grade(play(s, [look] * turns, text))
    return g.correct, g.labels


def test_the_grader_labels_a_silently_wrong_figure_passed_on_as_true():
    ok, labels = _answer("T31", "You have paid $798.00 on ACC-5120 this year.")
    assert not ok and SILENT_WRONG in labels
    ok, labels = _answer("T31", "You have paid $798 so far.")  # the same amount without cents
    assert SILENT_WRONG in labels
    ok, labels = _answer("T39", "You have no unpaid invoices; the balance due is $0.00.")
    assert not ok and SILENT_WRONG in labels


def test_a_warned_partial_figure_is_not_silent_and_a_permanent_cell_needs_the_warning():
    ok, labels = _answer("T31", "The list I got is incomplete: it shows $798.00 so far, so I can't give a total.")
    assert ok and labels == ()
    ok, labels = _answer("T31", "Thank you for your message.")  # says nothing wrong, but hides the problem
    assert not ok and labels == ("omitted_tell",)
    ok, labels = _answer("T35", "I can only tell you the figure as of 2024-12-01; today's is not available.",
                         style="contract")
    assert ok and labels == ()


def test_a_figure_a_clean_result_or_the_customer_also_gave_is_not_silently_wrong():
    # T30 faults only the first call; the second, clean result lists $399.00 rows too, and the answer is right.
    ok, labels = _answer("T30", "Three paid invoices, $1,038.00 in total.", turns=2)
    assert ok and labels == ()
    s = atlas_session("T31")
    look = IMPLICIT_TICKETS["T31"].script.batches()[0][0]
    run = play(s, [look], "Two invoices: INV-20432 and INV-20431, each $399.00.")
    assert SILENT_WRONG not in grade(run).labels  # $399.00 is a true row, not the cut total; "2" is not stated
    said_first = SimpleNamespace(id="T31", customer="globex", message="We think we paid $798.00.",
                                 outcome=run.ticket.outcome)
    customer = SimpleRun(said_first, run.world, run.trace, run.messages, "You said $798.00.", "finished", True)
    assert SILENT_WRONG not in grade(customer).labels


def test_runs_without_an_implicit_fault_are_graded_as_before():
    for tid in ("T01", "T19", "T21", "T27"):
        s = atlas_session(tid)
        run = play(s)
        assert not s.trace.of_kind("silent_fault") and SILENT_WRONG not in grade(run).labels
    assert not set(CAVEATS) & {"couldn't", "could not", "cannot"}  # a plain "couldn't" is not a warning about a figure


# --- the stand-in -----------------------------------------------------------------------------

@pytest.mark.parametrize("tid", list(IMPLICIT_TICKETS))
def test_the_stand_in_repeats_a_silent_figure_and_follows_an_explicit_flag(tid):
    implicit = cell_of(IMPLICIT_TICKETS[tid].faults)[0] == "implicit"
    client = offline_client(seed=3)
    runs = {style: run_agent(client, atlas_session(tid, style=style, seed=3), model=OFFLINE_MODEL, source=STANDIN_SOURCE)
            for style in ("raw", "contract")}
    assert grade(runs["contract"]).correct, grade(runs["contract"]).reasons  # built to follow the contract
    if implicit:  # built to take a success at its word: under the raw tool it passes the wrong figure on
        assert SILENT_WRONG in grade(runs["raw"]).labels
        assert runs["contract"].tool_calls == 2  # one call, flagged; asked once more


def test_a_flag_in_a_batch_asks_again_for_that_call_only():
    calls = [{"name": "query_warehouse", "input": {"region": r}} for r in ("north", "south")]
    goal = Goal("stock", "SKU-2041", list(calls))
    goal.succeed(calls[0], {"complete": False, "note": "Old. Call again."})
    goal.succeed(calls[1], {"units_shipped": 3, "on_hand": 9})
    assert not goal.done and goal.calls == [calls[0]] and len(goal.results) == 1
    goal.succeed(calls[0], {"units_shipped": 4, "on_hand": 8})
    assert goal.done and goal.calls == [] and len(goal.results) == 2 and not goal.failure
    again = Goal("stock", "SKU-2041", [calls[0]])
    again.succeed(calls[0], {"complete": False, "note": "Old. Call again."})
    again.succeed(calls[0], {"complete": False, "note": "Old. Call again."})
    assert again.failure == "the answer I got was marked incomplete (Old)." and again.results == []
