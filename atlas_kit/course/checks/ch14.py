"""Checks for chapter 14's exercises: a list result that says when it was cut short (14.1), run through the
real dispatcher and the stand-in on T30 and T31, its note judged for contradictions; and a paired comparison of
two arms by hand (14.2).
"""
from __future__ import annotations

import copy
import math
import random
from typing import Callable, cast

from ...agent import run_agent
from ...atlas import atlas_session, grade, money
from ...atlas.silent import mentioned
from ...dispatch.tool import CallContext, Tool
from ...models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, offline_client
from ...experiments.stats import fisher_exact, mcnemar_exact, pair_records, paired_difference
from ...types import JSONObject, Record
from ._registry import BLANK, PLACEHOLDER, Compare, Finding, exercise
from ._text import claims_complete, contradicts_itself

__all__ = ["paired_records"]

_ROWS = [{"invoice_id": "INV-20432", "status": "paid", "amount": "$399.00"},
         {"invoice_id": "INV-20431", "status": "paid", "amount": "$399.00"},
         {"invoice_id": "INV-20433", "status": "paid", "amount": "$240.00"}]


PaidResult = Callable[[str, list[JSONObject], int], object]
"""The learner's paid_result(account_id, rows, matched)."""


def _call(fn: PaidResult, rows: list[JSONObject], matched: int) -> tuple[object, str | None]:
    try:
        return fn("ACC-5120", copy.deepcopy(rows), matched), None
    except Exception as exc:  # an error in place of a result is one of the wrong answers this exercise is about
        return None, type(exc).__name__


def _shape(fn: PaidResult) -> str | Finding | None:
    """What is wrong with the results themselves, for a whole list, a cut one and an empty one."""
    return _whole(fn) or _cut(fn) or _others(fn)


def _whole(fn: PaidResult) -> str | None:
    """A whole list is an ordinary answer: its count, its rows, its total, and not marked incomplete."""
    whole, raised = _call(fn, _ROWS, 3)
    if raised or not isinstance(whole, dict):
        return f"For a whole list (3 rows, 3 matching) return a dict; yours {'raised ' + raised if raised else 'did not'}."
    if whole.get("count") != 3 or whole.get("invoices") != _ROWS or whole.get("total_amount") != "$1,038.00":
        return ("A whole list is an ordinary answer: count 3, the three rows under invoices, and total_amount "
                "'$1,038.00' (money() of the rows' cents).")
    if whole.get("complete", True) is not True:
        return "A whole list is complete: leave complete out or set it to True; only a cut list says False."
    return None


def _cut(fn: PaidResult) -> str | Finding | None:
    """A cut list keeps its rows, says complete False with count and returned, and gives no partial total."""
    cut, raised = _call(fn, _ROWS[:2], 3)
    if raised:
        return (f"Your function raised {raised} for a cut list. An error throws away the two rows that did come "
                "back, which are true; return them, and say the list is incomplete.")
    if not isinstance(cut, dict) or cut.get("invoices") != _ROWS[:2]:
        return "For a cut list (2 rows of 3 matching) return a dict that keeps the 2 rows that came back under invoices."
    if cut.get("complete") is not False:
        return ("A list cut short must say so where a program can read it: complete False. Without it, 2 rows and "
                "$798.00 look exactly like a whole answer.")
    if cut.get("count") != 3 or cut.get("returned") != 2:
        return ("Say how much is missing with numbers: count is how many invoices match (3), returned how many came "
                f"back (2); yours gave count {cut.get('count')!r} and returned {cut.get('returned')!r}.")
    if cut.get("total_amount") is not None:
        return ("Leave total_amount out (or None) when the list is cut: "
                f"{cut.get('total_amount')} is the sum of the rows that came back, not the total, and a model will "
                "pass it on as the total.")
    if not isinstance(cut.get("note"), str) or len(cut["note"].split()) < 4:
        return "Add a note in words: what is missing, and what to do next (call again; if still cut, tell the customer)."
    if (whole := claims_complete(cut["note"])) is not None:
        return Finding("contradiction", f"the note says {whole!r}, but the list says complete False: say what is "
                                        "missing instead.")
    if "$798.00" in cut["note"]:
        return Finding("contradiction", "the note states $798.00, the sum of the rows that came back, which a model "
                                        "will pass on as the total: leave the partial sum out.")
    if (said := contradicts_itself((cut["note"],))) is not None:
        return Finding("contradiction", f"the note {said}")
    return None


def _others(fn: PaidResult) -> str | None:
    """Another list, whole and cut to one row, and an empty one: decided from the rows and the count given."""
    other = [{"invoice_id": f"INV-3{n:04d}", "status": "paid", "amount": money(1250 * n + 99)} for n in range(1, 6)]
    for rows, matched in ((other, 5), (other[:1], 5)):  # another list, whole and cut to one row
        got, raised = _call(fn, rows, matched)
        whole = len(rows) == matched
        total = money(sum(1250 * n + 99 for n in range(1, len(rows) + 1))) if whole else None
        if raised or not isinstance(got, dict) or got.get("count") != matched or got.get("invoices") != rows \
                or got.get("complete", True) is not whole or got.get("total_amount") != total:
            return (f"Your result fits the example but not {len(rows)} row(s) of {matched} matching: decide from "
                    "len(rows) and matched, and add up the amounts of the rows you are given.")
    empty, raised = _call(fn, [], 0)
    if raised or not isinstance(empty, dict) or empty.get("count") != 0 or empty.get("complete", True) is not True \
            or empty.get("total_amount") != "$0.00":
        return ("An account with no matching invoices is a whole answer too: count 0, an empty list, total_amount "
                "'$0.00', and not marked incomplete (0 of 0 came back).")
    return None


def _tool_with(fn: PaidResult, real: Tool, cut_calls: set[int]) -> Tool:
    """list_invoices whose upstream drops the last row on the given calls, answered through `fn`."""
    calls = [0]

    def handler(args: JSONObject, ctx: CallContext) -> object:
        calls[0] += 1
        true = real.handler(args, ctx)
        assert isinstance(true, dict)  # Atlas's list_invoices answers with a JSON object, or raises
        rows = true["invoices"]
        kept = rows[:-1] if calls[0] in cut_calls and len(rows) > 1 else rows
        return fn(true["account_id"], [dict(r) for r in kept], true["count"])

    tool = copy.copy(real)
    tool.handler = handler
    return tool


def _end_to_end(fn: PaidResult) -> str | None:
    """T30 (cut once) and T31 (cut on every call), with your result in place of the tool's, run by the stand-in."""
    for tid, cut in (("T30", {1}), ("T31", set(range(1, 20)))):
        session = atlas_session(tid, faults=False, style="raw", seed=0)
        session.faults = True  # graded against the ticket's faulted outcome; the cutting is done here
        session.dispatcher.tools["list_invoices"] = _tool_with(fn, session.dispatcher.tools["list_invoices"], cut)
        run = run_agent(offline_client(seed=0), session, model=OFFLINE_MODEL, source=STANDIN_SOURCE)
        if mentioned(run.final_text, "$798.00"):
            return (f"On {tid} the stand-in told the customer $798.00, the sum of a cut list, as if it were the total; "
                    "your result must not present that figure as the total.")
        g = grade(run)
        if not g.correct:
            why = g.reasons[0] if g.reasons else run.stop_reason
            return f"On {tid} (the list cut {'once' if len(cut) == 1 else 'every time'}) the run ended wrong: {why}."
    return None


@exercise("14.1", "Say so when the list is cut short",
          right="A cut list keeps its rows, says complete False with count and returned, gives no partial total in a "
                "field or in its note, and the stand-in asks again (T30) or tells the customer the list is incomplete (T31).",
          hints=("Compare len(rows) with matched: equal means whole, fewer means cut short.",
                 "Whole: count, invoices and total_amount = money(sum of the rows' cents). Cut: the same rows, "
                 "count = matched, returned = len(rows), complete False, total_amount None, and a note.",
                 "The note says what is missing and what to do: call again, and if it is still incomplete, tell the "
                 "customer the full list could not be retrieved."),
          judges=("structure", "contradiction"),
          compare=Compare("whether the note says what is missing and what to do next",
                          "Only 2 of the 3 matching invoices came back, so this list has no total. Call again; if it "
                          "is still short, tell the customer the full list could not be retrieved.",
                          ("Does the note say what is missing (how many of how many came back)?",
                           "Does it say what to do: call again, and if it is still short, tell the customer?")))
def _check_cut(fn: object) -> str | Finding | None:
    """Structure: the fields of a whole, a cut and an empty list, a note of a few words, T30 and T31 run end to end.
    Contradiction: a note that calls the cut list whole or states its partial sum, or contradicts itself (retry and
    'pointless', keep silent and tell). Not judged: what the note says to do."""
    if not callable(fn):
        return "Pass the function paid_result itself (no parentheses): the check calls it with rows it chooses."
    first, raised = _call(fn, _ROWS, 3)
    if first is PLACEHOLDER:
        return BLANK
    if raised is not None:
        return (f"Your paid_result raised {raised} on a whole list of three rows: it should return the result, "
                "whole or cut, and never raise.")
    if first is None:
        return "Your paid_result returned None: end it with return, giving the result for those rows."
    return _shape(fn) or _end_to_end(fn)


# --- 14.2 -------------------------------------------------------------------------------------

def paired_records(seed: int) -> list[Record]:
    """A sweep's worth of records in two arms (raw, contract) plus noise the pairing must leave out, shuffled."""
    rng = random.Random(f"ch14:{seed}")
    out = []
    for ticket in ("T30", "T31", "T34", "T35"):
        for trial in range(8):
            p_raw, p_contract = (0.2, 0.9) if seed % 2 else (0.55, 0.7)
            for style, p in (("raw", p_raw), ("contract", p_contract)):
                out.append({"style": style, "ticket": ticket, "trial": trial, "seed": trial, "faults": True,
                            "correct": rng.random() < p, "stop_reason": "finished"})
    out += [{"style": "contract", "ticket": "T38", "trial": t, "seed": t, "faults": True, "correct": True,
             "stop_reason": "finished"} for t in range(6)]  # only one arm ran T38
    out += [{"style": "generic", "ticket": "T30", "trial": t, "seed": t, "faults": True, "correct": False,
             "stop_reason": "finished"} for t in range(4)]  # a third arm
    broken = next(r for r in out if r["style"] == "raw" and r["ticket"] == "T34" and r["trial"] == 3)
    broken.update(stop_reason="harness_error", correct=False)  # the harness failed: not the model's doing
    rng.shuffle(out)
    return cast(list[Record], out)  # the fields pairing reads, not whole records


def _expected(records: list[Record]) -> tuple[float, float]:
    pd = paired_difference(pair_records(records, a="contract", b="raw", on=("style", "ticket", "trial", "seed")))
    return pd.difference, pd.p_value


def _diagnose(records: list[Record], got: tuple[float, float]) -> str:
    pairs = pair_records(records, a="contract", b="raw", on=("style", "ticket", "trial", "seed"))
    pd = paired_difference(pairs)
    arm = {s: [r for r in records if r["style"] == s and r["stop_reason"] != "harness_error"] for s in ("contract", "raw")}
    wins = {s: sum(r["correct"] for r in rs) for s, rs in arm.items()}
    unpaired = wins["contract"] / len(arm["contract"]) - wins["raw"] / len(arm["raw"])
    diff, p = got
    if math.isclose(diff, unpaired, abs_tol=1e-9) and not math.isclose(unpaired, pd.difference, abs_tol=1e-9):
        return ("Your difference counts every record of each arm. Count only episodes run in both arms (same "
                "ticket, trial and seed), and leave out the harness's failures.")
    if not math.isclose(diff, pd.difference, abs_tol=1e-9):
        return (f"Your difference is {diff:.4f}; over the episodes both arms ran it is {pd.difference:.4f}. Pair each "
                "contract record with the raw record of the same ticket, trial and seed, not by position.")
    fishers = [fisher_exact(wins["contract"], len(arm["contract"]) - wins["contract"], wins["raw"],
                            len(arm["raw"]) - wins["raw"]),
               fisher_exact(sum(a for a, _ in pairs), sum(not a for a, _ in pairs), sum(b for _, b in pairs),
                            sum(not b for _, b in pairs))]
    if any(math.isclose(p, f, rel_tol=1e-6) for f in fishers):
        return ("That is Fisher's exact test, which treats the arms as separate samples. These are the same episodes "
                "twice: only the pairs where the arms disagree carry evidence (McNemar).")
    b, c = pd.n10, pd.n01
    one_sided = mcnemar_exact(b, c) / 2
    chi2 = math.erfc(math.sqrt((b - c) ** 2 / (b + c)) / math.sqrt(2)) if b + c else 1.0
    if math.isclose(p, one_sided, rel_tol=1e-6):
        return "That p is one tail only; the question is whether the arms differ in either direction, so double it."
    if math.isclose(p, chi2, rel_tol=1e-3):
        return ("That is McNemar's chi-squared approximation; with this few discordant pairs use the exact binomial "
                "tail: min(b, c) out of b + c at probability one half.")
    return (f"Your p is {p:.4g}; McNemar's exact two-sided p over the {b + c} discordant pairs ({b} right only with "
            f"contract, {c} only with raw) is {pd.p_value:.4g}.")


@exercise("14.2", "Pair the episodes, then test",
          right="The difference over episodes both arms ran, and McNemar's exact p from the discordant pairs.",
          hints=("Keep only finished records of the two arms; key each by (ticket, trial, seed); keep keys in both.",
                 "Count b = pairs right only with contract and c = pairs right only with raw; the difference is "
                 "(b - c) / number of pairs.",
                 "Two-sided exact p = min(1, 2 * sum(comb(b + c, k) for k in range(min(b, c) + 1)) / 2 ** (b + c))."))
def _check_pairing(fn: object) -> str | None:
    """Structure: the difference and McNemar's p, equal to the library's on three record sets. No free text is read."""
    if not callable(fn):
        return "Pass the function paired_test itself (no parentheses): the check calls it on record sets it builds."
    for seed in (1, 2, 3):
        records = paired_records(seed)
        got = fn(copy.deepcopy(records), "contract", "raw")
        if got is PLACEHOLDER:
            return BLANK
        if got is None:
            return "Your function returned None: end it with return (difference, p_value)."
        if not isinstance(got, tuple) or len(got) != 2 or not all(isinstance(x, (int, float)) for x in got):
            return "Return a pair of numbers: (difference, p_value)."
        want = _expected(records)
        if not (math.isclose(got[0], want[0], abs_tol=1e-9) and math.isclose(got[1], want[1], rel_tol=1e-9)):
            return _diagnose(records, (float(got[0]), float(got[1])))
    return None
