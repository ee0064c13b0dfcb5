"""The grader against a labelled set of final answers (answers.jsonl), each replayed through a real Atlas session.

Every line is a ticket, the tool calls of a run (played through `atlas_session`, so the end state and the trace are
real), the situation that run produced (checked here, so the file cannot drift from Atlas), a final answer written
as a varied model might write it, and a person's label: correct or not, and the label that must name the failure.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atlas_kit.atlas import LABELS, atlas_session, grade, play
from atlas_kit.atlas.faults import Fault
from atlas_kit.atlas.grade import FAILURE_WORDS, Grade, SimpleRun
from atlas_kit.atlas.outcome import Call

ANSWERS = Path(__file__).with_name("answers.jsonl")
# Issue 51: held-out 3 was labelled before the grader learned facts about records, queues, the hand-off's tell and
# internal names, and its failures then guided those rules; held-out 4 was labelled after, before it was graded.
HELD_OUT = (Path(__file__).with_name("answers_held_out_3.jsonl"), Path(__file__).with_name("answers_held_out_4.jsonl"))
TARGET = 0.95


def _items() -> list[dict[str, Any]]:
    return [json.loads(line) for path in (ANSWERS, *HELD_OUT)
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _replay(item: dict[str, Any]) -> SimpleRun:
    setup = dict(item.get("setup") or {})
    custom, graded_clean = setup.pop("faults", None), setup.pop("graded_clean", False)
    session = atlas_session(item["ticket"], faults=[Fault(**f) for f in custom] if custom else item["faults"], **setup)
    if graded_clean:  # as chapter 09 does: a fault of our own, graded against the ticket's clean outcome
        session.faults = False
    turns = [tuple(Call(c["tool"], c["input"]) for c in turn) for turn in item["turns"]]
    return play(session, turns, item["answer"])


def _situation(run: SimpleRun) -> dict[str, list[list[Any]]]:
    w = run.world
    return {"errors": [[e["tool"], e["code"]] for e in run.trace.of_kind("error")],
            "refunds": [[r["invoice_id"], r["amount_cents"]] for r in w.refunds],
            "order_changes": [[c["order_id"], "cancel" if c.get("status") == "cancelled"
                               else "quantity" if "quantity" in c else "address"] for c in w.order_changes],
            "escalations": [[e["account_id"], e["queue"]] for e in w.escalations]}


def _agrees(item: dict[str, Any], g: Grade) -> bool:
    return g.correct == item["correct"] and (item["label"] is None or item["label"] in g.labels)


ITEMS = _items()


def test_the_set_is_large_and_varied_enough() -> None:
    assert len(ITEMS) >= 60 and len({i["ticket"] for i in ITEMS}) >= 15
    assert len({i["id"] for i in ITEMS}) == len(ITEMS)
    labels = {i["label"] for i in ITEMS if i["label"]}
    assert {"false_report", "omitted_tell", "fabrication", "dropped_failure", "internal_names"} <= labels <= set(LABELS)
    assert all(not i["correct"] or i["label"] is None for i in ITEMS)
    plain = [i for i in ITEMS if i["correct"] and not any(w in i["answer"].lower() for w in FAILURE_WORDS)]
    hedged = [i for i in ITEMS if "hedge" in i["why"]]
    assert len(plain) >= 5 and len(hedged) >= 4


@pytest.mark.parametrize("item", ITEMS, ids=[i["id"] for i in ITEMS])
def test_each_answer_is_replayed_in_the_situation_it_was_written_for(item: dict[str, Any]) -> None:
    assert _situation(_replay(item)) == item["situation"]


def test_the_grader_agrees_with_the_labels() -> None:
    """Agreement: the verdict matches and, for a wrong answer with a label, the grader names that label too.

    Printed per set: `dev` was written before the grader changed and its rules were built against it; the
    held-out sets were each written before the grader was run on them (see each line's `why` for relabels).
    """
    disagreements: list[str] = []
    tally: dict[str, tuple[int, int, int]] = {}
    for item in ITEMS:
        g = grade(_replay(item))
        n, agreed, verdicts = tally.get(item["set"], (0, 0, 0))
        tally[item["set"]] = (n + 1, agreed + _agrees(item, g), verdicts + (g.correct == item["correct"]))
        if not _agrees(item, g):
            disagreements.append(f"{item['id']} {item['ticket']}: labelled {'correct' if item['correct'] else 'wrong'}"
                                 f" ({item['label'] or '-'}), graded {'correct' if g.correct else 'wrong'}"
                                 f" {g.labels} {g.reasons} | {item['answer']}")
    agreement = 1 - len(disagreements) / len(ITEMS)
    print(f"\ngrader agreement with the labelled sets: {agreement:.1%} ({len(ITEMS) - len(disagreements)}/{len(ITEMS)})")
    for name, (n, agreed, verdicts) in tally.items():
        print(f"  {name}: {agreed}/{n} on the verdict and the label, {verdicts}/{n} on the verdict alone")
    print("\n".join(disagreements) or "no disagreements")
    assert agreement >= TARGET, "\n".join(disagreements)


def test_no_wrong_answer_is_graded_correct() -> None:
    """No false pass: every answer a person labelled wrong is graded wrong (issue 51's bar; a false fail is a
    disagreement above, counted against the target)."""
    passed = [f"{i['id']} {i['ticket']}: {i['why']}" for i in ITEMS if not i["correct"] and grade(_replay(i)).correct]
    assert not passed, passed
