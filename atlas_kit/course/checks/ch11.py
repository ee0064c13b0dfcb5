"""Checks for chapter 11's exercises: recovery and its Wilson interval by hand (11.1), and a paired
sweep, read (11.2), compared with metrics and a fresh re-run of a few episodes.
"""
from __future__ import annotations

import copy
import math
from typing import cast

from ...atlas.tickets import TICKETS
from ...stats import Z95
from ...experiments.metrics import Paired, paired_recovery, recovery, success
from ...types.sets import JSONObject
from ...types.records import Record
from ._registry import BLANK, PLACEHOLDER, exercise


def _episodes(counts: tuple[int, int, int, int]) -> list[Record]:
    """Episode records from counts: (hit & correct, hit & wrong, clean & correct, clean & wrong); only the
    fields recovery reads."""
    out: list[JSONObject] = []
    for n, (hit, correct) in zip(counts, ((True, True), (True, False), (False, True), (False, False))):
        out += [{"ticket": f"T{len(out) + 1:02d}", "style": "raw", "hit_error": hit, "correct": correct,
                 "stop_reason": "finished"} for _ in range(n)]
    return cast(list[Record], out)


_SETS_11 = ((6, 3, 4, 1), (7, 3, 0, 0), (0, 5, 3, 0), (5, 0, 2, 2), (70, 30, 12, 3))


@exercise("11.1", "Recovery and its Wilson interval, by hand",
          right="Your recovery and Wilson 95% interval match metrics.recovery on every set of episodes.",
          hints=("Recovery counts only episodes whose hit_error is true: k = correct among them, n = how many there are.",
                 "Wilson: centre = (p + z²/2n) / (1 + z²/n), half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n), z = Z95.",
                 "Return the three numbers as fractions between 0 and 1: (k / n, centre - half, centre + half)."))
def _check_recovery(fn: object) -> str | None:
    """Structure: the rate and the Wilson interval, equal to metrics.recovery on five sets. No free text is read."""
    if not callable(fn):
        return "Pass the function recovery_by_hand itself (no parentheses), so the check can try it on other episodes."
    for counts in _SETS_11:
        episodes = _episodes(counts)
        got = fn(copy.deepcopy(episodes))
        if got is PLACEHOLDER:
            return BLANK
        if got is None:
            return "Your function returned None: end it with return (rate, low, high)."
        if not isinstance(got, (tuple, list)) or len(got) != 3 or not all(isinstance(x, (int, float)) for x in got):
            return "Return a tuple of three numbers: (rate, low, high)."
        rate, low, high = map(float, got)
        want = recovery(episodes)
        k, n = want.successes, want.n
        if not math.isclose(rate, want.rate, abs_tol=1e-6):
            if math.isclose(rate, 100 * want.rate, abs_tol=1e-4):
                return "Give the rate as a fraction between 0 and 1, not a percentage."
            if math.isclose(rate, success(episodes).rate, abs_tol=1e-6):
                return ("Your rate is the success rate over every episode; recovery counts only episodes where an "
                        "error reached the model (hit_error).")
            return f"For {sum(counts)} episodes your rate is {rate:.4f}; recovery is correct among those with hit_error."
        w_low, w_high = want.interval
        if math.isclose(low, w_low, abs_tol=1e-6) and math.isclose(high, w_high, abs_tol=1e-6):
            continue
        half = Z95 * math.sqrt(want.rate * (1 - want.rate) / n)
        if math.isclose(low, max(0.0, want.rate - half), abs_tol=1e-6) or math.isclose(low, want.rate - half, abs_tol=1e-6):
            return ("That is the Wald interval p ± z·sqrt(p(1-p)/n); it collapses at 0/n and n/n. Use the Wilson "
                    "score interval from the chapter.")
        return (f"At {k}/{n} your interval [{low:.4f}, {high:.4f}] is not the Wilson 95% interval; check the centre "
                "(p + z²/2n) and the shared denominator (1 + z²/n).")
    return None

FAULT_TICKETS = tuple(t for t, tk in TICKETS.items() if tk.faults)


def _spot_check(records: list[JSONObject]) -> bool:
    """Re-run a few offline episodes and compare: the records must be the sweep's own."""
    from ...experiments.episodes import Episode, profile_named
    from ...experiments.running import run_episode
    from ...models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, offline_client
    from ...experiments.results import Condition

    picked = [r for r in records if r.get("model") == OFFLINE_MODEL and r["hit_error"]][:3]
    for r in picked:
        c = Condition(r["style"], r["faults"], r["break_loops"], r["profile"], r["model"])
        fresh = run_episode(offline_client(seed=r["seed"], profile=profile_named(r["profile"])),
                            Episode(c, r["ticket"], r["trial"]), source=STANDIN_SOURCE)
        if (fresh["correct"], fresh["labels"]) != (r["correct"], r["labels"]):
            return False
    return True


def _tickets(value: object) -> set[str] | None:
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        return None
    return {str(v) for v in value}


@exercise("11.2", "A paired sweep, read",
          right="Your sweep is paired and your two readings match its records.",
          hints=("run_experiment(name=..., styles=['raw'], faults=(True, False), tickets=FAULT_TICKETS, trials=3, "
                 "progress=False) keeps everything in memory.",
                 "paired_recovery([r for r in records if r['style'] == 'raw']) gives, per ticket, .with_faults and "
                 ".without, each with .successes and .n.",
                 "hurt: with_faults.rate < without.rate. fails_without_faults: without.successes < without.n."))
def _check_sweep(answer: object) -> str | None:
    """Structure: a paired sweep, re-run in part, and the two readings equal to its records. No free text is read."""
    if not isinstance(answer, dict):
        return "Return a dict with the keys records, hurt and fails_without_faults."
    missing = [k for k in ("records", "hurt", "fails_without_faults") if k not in answer]
    if missing:
        return f"Your dict lacks {', '.join(missing)}; return records, hurt and fails_without_faults."
    records = answer["records"]
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) and "key" in r for r in records):
        return "answer['records'] should be the list of records run_experiment returned."
    raw = [r for r in records if r.get("style") == "raw"]
    if not raw:
        return "Your sweep has no raw-style episodes; the question is about the raw style."
    problem = _paired(raw)
    if problem is not None:
        return problem
    if not _spot_check(raw):
        return "Your records do not match a fresh run of the same episodes; pass the records run_experiment returned, unedited."
    return _readings(answer, paired_recovery(raw))


def _paired(raw: list[JSONObject]) -> str | None:
    """Every ticket with faults run in both arms, at least three trials each."""
    arms = {(r["ticket"], bool(r["faults"])) for r in raw}
    lacking = [t for t in FAULT_TICKETS if (t, True) not in arms or (t, False) not in arms]
    if lacking:
        return (f"Not run both with faults on and with them off in the raw style: {', '.join(lacking)}. The paired "
                "design needs every ticket that has faults in both arms.")
    cells: dict[tuple[str, bool], int] = {}
    for r in raw:
        cells[(r["ticket"], bool(r["faults"]))] = cells.get((r["ticket"], bool(r["faults"])), 0) + 1
    if min(cells.values()) < 3:
        return f"Some ticket and arm has only {min(cells.values())} trial(s); run at least 3 trials of each."
    return None


def _readings(answer: dict[object, object], paired: dict[str, Paired]) -> str | None:
    """The two readings, hurt and fails_without_faults, equal to the records' own."""
    want_hurt = {t for t, p in paired.items() if p.with_faults.rate < p.without.rate}
    want_fails = {t for t, p in paired.items() if p.without.successes < p.without.n}
    for key, want, meaning in (("hurt", want_hurt, "fewer correct runs with faults on than off"),
                               ("fails_without_faults", want_fails, "at least one failed run with faults off")):
        got = _tickets(answer[key])
        if got is None:
            return f"answer[{key!r}] should be a list of ticket ids such as ['T11']."
        extra, lost = sorted(got - want), sorted(want - got)
        if extra:
            p = paired.get(extra[0])
            shown = f" ({p.with_faults.successes}/{p.with_faults.n} on vs {p.without.successes}/{p.without.n} off)" if p else ""
            return f"{key}: {extra[0]}{shown} does not have {meaning} in your records."
        if lost:
            return f"{key} misses {len(lost)} ticket(s) that have {meaning} in your records."
    return None
