"""The checks of exercises 14.1 and 14.2 pass the stored solutions and fail a blank and the typical wrong answers.

Each wrong answer below is an idea a learner may reasonably hold (a cut list is still a list; a test for two
samples fits two arms); the check must refuse it with a message about that idea. The solutions are taken from
the solution notebook itself, by running its code cells.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

import nbformat
import pytest

from atlas_kit.atlas import money
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check
from atlas_kit.course.checks.ch14 import paired_records
from atlas_kit.stats import fisher_exact, mcnemar_exact

ROOT = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=None)
def solutions() -> dict[str, Any]:
    names: dict[str, Any] = {}
    nb = nbformat.read(ROOT / "solutions" / "14_implicit_failures.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and not cell.source.startswith(("check(", "records = sweep")):
            exec(compile(cell.source, "14_implicit_failures.ipynb", "exec"), names)  # noqa: S102 - our own notebook
    return names


def test_the_stored_solutions_pass():
    assert check("14.1", solutions()["paid_result"]).ok, check("14.1", solutions()["paid_result"]).message
    assert check("14.2", solutions()["paired_test"]).ok, check("14.2", solutions()["paired_test"]).message


def test_a_blank_answer_is_not_answered_yet():
    def paid_result(account_id, rows, matched):
        ...  # your answer here

    def paired_test(records, a, b):
        ...  # your answer here

    assert check("14.1", paid_result).message == BLANK and check("14.2", paired_test).message == BLANK
    assert check("14.1", ...).message == BLANK


# --- 14.1: wrong ideas about a cut list -------------------------------------------------------

def _cents(rows: list[dict]) -> int:
    return sum(int(r["amount"].replace("$", "").replace(",", "").replace(".", "")) for r in rows)


def silent(account_id, rows, matched):  # a cut list is still a list
    return {"account_id": account_id, "count": len(rows), "invoices": rows, "total_amount": money(_cents(rows))}


def always_flagged(account_id, rows, matched):  # marks every answer incomplete, to be safe
    return {"account_id": account_id, "count": matched, "returned": len(rows), "invoices": rows, "complete": False,
            "total_amount": None, "note": "This list may be incomplete; call again to be sure."}


def counts_what_came(account_id, rows, matched):  # flags it, but count is what came back
    out = always_flagged(account_id, rows, matched)
    if len(rows) == matched:
        return silent(account_id, rows, matched)
    return {**out, "count": len(rows)}


def partial_total(account_id, rows, matched):  # flags it, and still gives the sum of what came
    out = counts_what_came(account_id, rows, matched)
    return out if len(rows) == matched else {**out, "count": matched, "total_amount": money(_cents(rows))}


def raises(account_id, rows, matched):  # an error is explicit too
    if len(rows) < matched:
        raise RuntimeError("the billing store returned fewer rows than match")
    return silent(account_id, rows, matched)


def drops_rows(account_id, rows, matched):  # flags it and keeps nothing
    out = partial_total(account_id, rows, matched)
    return out if len(rows) == matched else {**out, "total_amount": None, "invoices": []}


def no_note(account_id, rows, matched):
    out = partial_total(account_id, rows, matched)
    return out if len(rows) == matched else {k: v for k, v in {**out, "total_amount": None}.items() if k != "note"}


def zero_of_zero(account_id, rows, matched):  # "no rows came back" read as "cut short"
    right = solutions()["paid_result"]
    if not rows:
        return {"account_id": account_id, "count": 0, "returned": 0, "invoices": [], "complete": False,
                "total_amount": None, "note": "Nothing came back; call again."}
    return right(account_id, rows, matched)


def hard_coded(account_id, rows, matched):  # right for the example it was tried on, and only there
    right = solutions()["paid_result"]
    if (len(rows), matched) == (2, 3):
        return right(account_id, rows, matched)
    return silent(account_id, rows, matched)


def noting(note):
    """The solution, with `note` (formatted with returned, matched and partial) on a cut list."""
    def paid_result(account_id, rows, matched):
        out = solutions()["paid_result"](account_id, rows, matched)
        if len(rows) == matched:
            return out
        return {**out, "note": note.format(returned=len(rows), matched=matched, partial=money(_cents(rows)))}
    paid_result.__name__ = f"noting {note[:30]!r}"
    return paid_result


@pytest.mark.parametrize("wrong,fragment", [
    (noting("These are all the paid invoices on the account."), "Contradiction: the note says 'These are all'"),
    (noting("This is the complete list of paid invoices."), "but the list says complete False"),
    (noting("Nothing is missing from this list of invoices."), "'Nothing is missing'"),
    (noting("The total of these invoices is {partial}."), "Contradiction: the note states $798.00"),
    (noting("Here are the paid invoices; together they come to {partial}."), "leave the partial sum out"),
    (silent, "complete False"),
    (always_flagged, "A whole list is"),
    (counts_what_came, "count is how many invoices match"),
    (partial_total, "Leave total_amount out"),
    (raises, "throws away the two rows"),
    (drops_rows, "keeps the 2 rows"),
    (no_note, "note in words"),
    (zero_of_zero, "0 of 0"),
    (hard_coded, "fits the example but not"),
], ids=lambda x: getattr(x, "__name__", "msg"))
def test_14_1_refuses_each_wrong_idea_with_a_message_about_it(wrong, fragment):
    feedback = check("14.1", wrong)
    assert not feedback.ok and fragment in feedback.message, feedback.message


@pytest.mark.parametrize("note", [
    "Only {returned} of the {matched} matching invoices came back; call again for the rest, and if it is still short "
    "say the list is incomplete.",
    "This list is missing invoices and has no total. Ask for it again; if it is still short, tell the customer you "
    "could not get the full list.",
    "Partial result, {returned} of {matched}: do not add these up as a total, and call list_invoices again.",
    "Incomplete: {matched} invoices match but only {returned} arrived. Try again, and if the list is still cut, let "
    "the customer know not all invoices could be fetched.",
])
def test_14_1_passes_a_note_in_other_words(note):
    feedback = check("14.1", noting(note))
    assert feedback.ok, feedback.message


@pytest.mark.parametrize("note", ["Some invoices may be missing from this list.",
                                  "The list was cut short by the billing store."])
def test_14_1_does_not_judge_what_a_note_says_to_do_and_shows_the_reference(note):
    feedback = check("14.1", noting(note))
    assert feedback.ok and "Not judged: " in feedback.message and len(feedback.rubric) == 2, feedback.message


def test_14_1_runs_the_stand_in_with_your_result_in_place():
    from atlas_kit.course.checks.ch14 import _end_to_end

    assert _end_to_end(solutions()["paid_result"]) is None
    message = _end_to_end(silent)
    assert message is not None and "$798.00" in message  # T30: the stand-in told the customer the cut total


# --- 14.2: wrong ideas about a paired comparison ------------------------------------------------

def _arms(records, a, b, *, drop_broken=True):
    keep = [r for r in records if r["style"] in (a, b) and (r["stop_reason"] != "harness_error" or not drop_broken)]
    return {s: {(r["ticket"], r["trial"], r["seed"]): r["correct"] for r in keep if r["style"] == s} for s in (a, b)}


def _mcnemar(x: int, y: int, *, doubled: bool = True) -> float:
    tail = sum(math.comb(x + y, k) for k in range(min(x, y) + 1)) / 2 ** (x + y)
    return min(1.0, 2 * tail) if doubled else tail


def _paired_counts(arms, a, b):
    both = [k for k in arms[a] if k in arms[b]]
    x = sum(arms[a][k] and not arms[b][k] for k in both)
    y = sum(arms[b][k] and not arms[a][k] for k in both)
    return both, x, y


def by_position(records, a, b):  # zip the two arms in the order the records came
    ra = [r["correct"] for r in records if r["style"] == a and r["stop_reason"] != "harness_error"]
    rb = [r["correct"] for r in records if r["style"] == b and r["stop_reason"] != "harness_error"]
    pairs = list(zip(ra, rb))
    x, y = sum(p and not q for p, q in pairs), sum(q and not p for p, q in pairs)
    return (x - y) / len(pairs), _mcnemar(x, y)


def every_record(records, a, b):  # the rates of all records, and McNemar on the true pairs
    arms = _arms(records, a, b)
    both, x, y = _paired_counts(arms, a, b)
    rate = {s: sum(v.values()) / len(v) for s, v in arms.items()}
    return rate[a] - rate[b], _mcnemar(x, y)


def fisher(records, a, b):  # a test for two independent samples
    arms = _arms(records, a, b)
    both, x, y = _paired_counts(arms, a, b)
    wins = {s: sum(v.values()) for s, v in arms.items()}
    return (x - y) / len(both), fisher_exact(wins[a], len(arms[a]) - wins[a], wins[b], len(arms[b]) - wins[b])


def one_sided(records, a, b):
    arms = _arms(records, a, b)
    both, x, y = _paired_counts(arms, a, b)
    return (x - y) / len(both), _mcnemar(x, y, doubled=False)


def chi_squared(records, a, b):  # McNemar's large-sample approximation
    arms = _arms(records, a, b)
    both, x, y = _paired_counts(arms, a, b)
    return (x - y) / len(both), math.erfc(math.sqrt((x - y) ** 2 / (x + y)) / math.sqrt(2))


def keeps_broken(records, a, b):  # counts the harness's failure as the model's
    arms = _arms(records, a, b, drop_broken=False)
    both, x, y = _paired_counts(arms, a, b)
    return (x - y) / len(both), _mcnemar(x, y)


def as_dict(records, a, b):
    d, p = solutions()["paired_test"](records, a, b)
    return {"difference": d, "p": p}


@pytest.mark.parametrize("wrong,fragment", [
    (by_position, "not by position"),
    (every_record, "counts every record"),
    (fisher, "Fisher's exact test"),
    (one_sided, "one tail"),
    (chi_squared, "chi-squared approximation"),
    (keeps_broken, "Pair each contract record"),
    (as_dict, "pair of numbers"),
], ids=lambda x: getattr(x, "__name__", "msg"))
def test_14_2_refuses_each_wrong_idea_with_a_message_about_it(wrong, fragment):
    feedback = check("14.2", wrong)
    assert not feedback.ok and fragment in feedback.message, feedback.message


def test_14_2_record_sets_make_the_wrong_ideas_differ_from_the_right_one():
    right = solutions()["paired_test"]
    wrong = (by_position, every_record, fisher, one_sided, chi_squared, keeps_broken)
    differs = {f.__name__: False for f in wrong}
    for seed in (1, 2, 3):
        records = paired_records(seed)
        assert paired_records(seed) == records  # the same set every time
        d, p = right(records, "contract", "raw")
        assert p == pytest.approx(mcnemar_exact(*_paired_counts(_arms(records, "contract", "raw"), "contract", "raw")[1:]))
        assert {r["style"] for r in records} == {"raw", "contract", "generic"}
        assert any(r["stop_reason"] == "harness_error" for r in records)
        for f in wrong:
            differs[f.__name__] |= f(records, "contract", "raw") != (d, p)
    assert all(differs.values()), differs  # on at least one of the check's record sets, each idea gives another answer
