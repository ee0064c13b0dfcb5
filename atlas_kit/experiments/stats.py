"""Comparing two arms: a paired difference with its interval, McNemar's and Fisher's exact tests, and
tokens per successful episode with an interval, and `paired_rows`, every two-arm summary's paired table.

The tests and intervals themselves are atlas_kit/stats.py's; this module pairs records and lays out their table.
Pure functions over result records. Chapters 11 and 14.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..stats import Z95, Rate, _counts, fisher_exact, mcnemar_exact, newcombe_paired, wilson
from .captions import data_caption
from .metrics import groups, success, usable
from ..types.records import Record, TableRows
from ..types.exceptions import AtlasKitValueError

# The fields that make two records the same episode in different arms (the arm's own field is left out).
EPISODE_FIELDS = ("model", "style", "faults", "break_loops", "profile", "ticket", "trial", "seed")


@dataclass(frozen=True)
class PairedDifference:
    """Paired outcomes of arms a and b: both right (n11), only a (n10), only b (n01), neither (n00)."""

    n11: int
    n10: int
    n01: int
    n00: int

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00

    @property
    def difference(self) -> float:
        """p_a - p_b; nan with no pairs."""
        return (self.n10 - self.n01) / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return newcombe_paired(self.n11, self.n10, self.n01, self.n00)

    @property
    def p_value(self) -> float:
        """McNemar's exact test: only the discordant pairs carry evidence of a difference."""
        return mcnemar_exact(self.n10, self.n01)

    def __str__(self) -> str:
        if not self.n:
            return "no pairs"
        low, high = self.interval
        return (f"{self.difference:+.0%} [{low:+.0%}, {high:+.0%}] over {self.n} pairs "
                f"({self.n10} right only in a, {self.n01} only in b); McNemar exact p = {self.p_value:.3g}")


def paired_difference(pairs: Iterable[tuple[bool, bool]]) -> PairedDifference:
    """Count (a right, b right) pairs into a PairedDifference."""
    cells = [0, 0, 0, 0]
    for a, b in pairs:
        cells[(not a) * 2 + (not b)] += 1  # (T,T) (T,F) (F,T) (F,F)
    return PairedDifference(*cells)


def pair_records(records: Iterable[Record], *, by: str = "style", a: object, b: object,
                 on: Sequence[str] = EPISODE_FIELDS) -> list[tuple[bool, bool]]:
    """(a correct, b correct) for every episode run in both arms: records equal on `on` except `by`.

    Episodes the harness could not finish are left out, and so is an episode missing from either arm.
    """
    if by not in on:
        raise AtlasKitValueError(f"by={by!r} must be one of the fields records are paired on: {', '.join(on)}.")
    keys = [f for f in on if f != by]
    arms: dict[object, dict[tuple[object, ...], bool]] = {a: {}, b: {}}
    for r in usable(records):
        arm = r.get(by)
        if arm in arms:
            key = tuple(r.get(f) for f in keys)
            if key in arms[arm]:
                raise AtlasKitValueError(f"two records are the same episode in arm {arm!r} ({dict(zip(keys, key))}); "
                                 "pair one run of each episode per arm.")
            arms[arm][key] = bool(r["correct"])
    return [(arms[a][k], arms[b][k]) for k in sorted(arms[a], key=repr) if k in arms[b]]


@dataclass(frozen=True)
class TokensPerSuccess:
    """Tokens spent per correct episode: every episode's tokens (failures too) over the number correct."""

    tokens: int
    successes: int
    episodes: int
    value: float
    interval: tuple[float, float]

    def __str__(self) -> str:
        if not self.successes:
            return f"no correct episode in {self.episodes} ({self.tokens:,} tokens spent)"
        low, high = self.interval
        return f"{self.value:,.0f} [{low:,.0f}, {high:,.0f}] tokens per correct episode ({self.successes}/{self.episodes})"


def tokens_per_success(records: Iterable[Record], *, z: float = Z95) -> TokensPerSuccess:
    """R = sum(tokens) / sum(correct), tokens = input + output, with a delta-method interval for a ratio.

    Var(R) ~ sum((t_i - R·s_i)²) / (n(n-1)·mean(s)²) (Cochran, Sampling Techniques, 1977, sec. 6.4); the
    interval is R ± z·se, floored at 0. No correct episode gives an infinite value and no interval.
    """
    rs = usable(records)
    t = [int(r["input_tokens"]) + int(r["output_tokens"]) for r in rs]
    s = [1 if r["correct"] else 0 for r in rs]
    n, total, wins = len(rs), sum(t), sum(s)
    if not wins:
        return TokensPerSuccess(total, 0, n, math.inf, (math.nan, math.nan))
    ratio = total / wins
    if n < 2:
        return TokensPerSuccess(total, wins, n, ratio, (math.nan, math.nan))
    spread = sum((ti - ratio * si) ** 2 for ti, si in zip(t, s)) / (n - 1)
    se = math.sqrt(spread / n) / (wins / n)
    return TokensPerSuccess(total, wins, n, ratio, (max(0.0, ratio - z * se), ratio + z * se))


@dataclass(frozen=True)
class Comparison:
    """Two arms side by side: each one's success rate and tokens per success, and the tests between them."""

    by: str
    a: object
    b: object
    rate_a: Rate
    rate_b: Rate
    paired: PairedDifference
    fisher_p: float
    tokens_a: TokensPerSuccess
    tokens_b: TokensPerSuccess

    def __str__(self) -> str:
        lines = [f"{self.by} {self.a}: success {self.rate_a}; {self.tokens_a}",
                 f"{self.by} {self.b}: success {self.rate_b}; {self.tokens_b}"]
        if self.paired.n:
            lines.append(f"paired difference ({self.a} - {self.b}): {self.paired}")
        lines.append(f"Fisher's exact p (unpaired) = {self.fisher_p:.3g}")
        return "\n".join(lines)


def compare_arms(records: Sequence[Record], *, by: str = "style", a: object, b: object) -> Comparison:
    """Compare arm a with arm b on success: the paired difference and McNemar's p over the episodes both
    ran, and Fisher's exact p over all of each arm's episodes (the test to read when nothing pairs)."""
    ra, rb = ([r for r in records if r.get(by) == arm] for arm in (a, b))
    if not usable(ra) or not usable(rb):
        raise AtlasKitValueError(f"compare_arms needs finished episodes in both arms; {by}={a!r} has {len(usable(ra))} "
                         f"and {by}={b!r} has {len(usable(rb))}.")
    sa, sb = success(ra), success(rb)
    fisher = fisher_exact(sa.successes, sa.n - sa.successes, sb.successes, sb.n - sb.successes)
    return Comparison(by, a, b, sa, sb, paired_difference(pair_records(records, by=by, a=a, b=b)), fisher,
                      tokens_per_success(ra), tokens_per_success(rb))


# The conditions a sweep may vary besides the arm: each pair is within one of them, and a table row per value.
_CONDITIONS = ("faults", "break_loops", "profile", "model")
_NAMES = {"faults": "faults", "break_loops": "loop breaker", "profile": "profile", "model": "model"}


def paired_rows(records: Sequence[Record], *, by: str = "style", against: object = None) -> TableRows:
    """Each arm against one: the paired difference in success with Newcombe's 95% interval and McNemar's exact p.

    against: the arm every other is compared with; by default the contract when it ran, else the last arm seen.
    Pairs are the same episode (ticket, trial and seed) in both arms; a condition that varies (faults, loop
    breaker, profile, model) gets a row per value, so no pair crosses conditions.
    """
    arms = list(dict.fromkeys(r.get(by) for r in usable(records)))
    base = against if against is not None else "contract" if "contract" in arms else arms[-1] if arms else None
    if len(arms) < 2 or base not in arms:
        raise AtlasKitValueError(f"paired_rows needs finished episodes in two arms of {by}, {base!r} among them; "
                         f"these records have {arms or 'none'}.")
    varying = [f for f in _CONDITIONS if f != by and len({r.get(f) for r in records}) > 1]
    rows: list[list[object]] = []
    for other in (arm for arm in arms if arm != base):
        for key, rs in groups(records, tuple(varying)).items():
            d = paired_difference(pair_records(rs, by=by, a=base, b=other))
            low, high = d.interval
            where = ", ".join(f"{_NAMES[f]} {_condition(v)}" for f, v in zip(varying, key)) or "all"
            rows.append([f"{_arm(by, base)} - {_arm(by, other)}", where, d.n, f"{d.n10} / {d.n01}",
                         f"{_pts(d.difference)} [{_pts(low)}, {_pts(high)}]" if d.n else "n/a (no pairs)",
                         f"{d.p_value:.3g}" if d.n else "n/a"])
    caption = (f"Paired: each pair is one episode (same ticket, trial and seed) run in both arms"
               f"{', within one setting of ' + ' and '.join(_NAMES[f] for f in varying) if varying else ''}. "
               f"Difference in success (graded correct), {_arm(by, base)} minus the other arm, in points, with Newcombe's 95% "
               f"interval; McNemar's exact p reads only the discordant pairs."
               f"{f' Every other {by} is compared with {base}.' if len(arms) > 2 else ''} "
               f"{data_caption(records)}")
    named = "settings" if isinstance(base, bool) else f"{by.replace('_', ' ')}s"  # a switch has settings, not names
    return TableRows([f"{named} compared", "condition", "pairs", f"right only in {_arm(by, base)} / other",
                      "difference, points [95% CI]", "McNemar p"], rows, caption)


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}"


def _arm(by: str, value: object) -> str:
    """An arm as a reader names it: a style by its name, a switch by what it is and its setting (loop breaker on)."""
    return f"{_NAMES.get(by, by.replace('_', ' '))} {_condition(value)}" if isinstance(value, bool) else str(value)


def _condition(value: object) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else "-" if value is None else str(value)
