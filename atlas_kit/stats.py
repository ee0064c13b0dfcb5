"""Counting statistics every measurement here shares: a rate with its Wilson interval, McNemar's and Fisher's exact
tests and Newcombe's paired interval. Pure functions over counts: a sweep's records (experiments/) and other people's
transcripts (transcripts/) both build on them, and neither needs the other. Chapters 11 and 16.

Exact tests sum integer binomial and hypergeometric counts (math.comb), so no rounding decides a p-value.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from .types.exceptions import AtlasKitValueError

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def wilson(successes: int, n: int, *, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for `successes` out of `n`:

    (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), with p = successes/n.
    It stays inside [0, 1] and keeps a width at 0/n and n/n, where the normal interval collapses
    to a point. The ends are exactly 0 at 0/n and exactly 1 at n/n; n = 0 gives (0, 1): no information.
    """
    if n < 0 or not 0 <= successes <= n:
        raise AtlasKitValueError(f"wilson needs 0 <= successes <= n; got successes={successes}, n={n}.")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Rate:
    """successes out of n, with its Wilson 95% interval; `rate` is nan when n is 0."""

    successes: int
    n: int

    @property
    def rate(self) -> float:
        return self.successes / self.n if self.n else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.successes, self.n)

    @property
    def brief(self) -> str:
        """The rate and its interval for a table cell: '62% [40%, 80%]', or 'n/a' with no episodes."""
        if not self.n:
            return "n/a"
        low, high = self.interval
        return f"{self.rate:.0%} [{low:.0%}, {high:.0%}]"

    def __str__(self) -> str:
        if not self.n:
            return "n/a (0 episodes)"
        low, high = self.interval
        return f"{self.rate:.0%} [{low:.0%}, {high:.0%}] ({self.successes}/{self.n})"


def _counts(*values: int) -> None:
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
        raise AtlasKitValueError(f"counts must be whole numbers of 0 or more; got {values}.")


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact test, two-sided: b pairs right only in arm a, c right only in arm b.

    Under no difference each discordant pair falls either way with chance 1/2, so min(b, c) is
    Binomial(b + c, 1/2); p = min(1, 2·P(X <= min(b, c))). No discordant pairs gives p = 1.
    """
    _counts(b, c)
    n, k = b + c, min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2 ** n) if n else 1.0


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Fisher's exact test, two-sided, for the table [[a, b], [c, d]] (rows: arms; columns: right, wrong).

    With the margins fixed, the top-left cell is hypergeometric; p sums the probability of every table
    no more likely than the one observed. Probabilities are compared as exact integers, so ties count.
    """
    _counts(a, b, c, d)
    row, col, n = a + b, a + c, a + b + c + d
    weights = {x: math.comb(row, x) * math.comb(n - row, col - x) for x in range(max(0, col - (n - row)), min(row, col) + 1)}
    seen = weights[a]
    return min(1.0, sum(w for w in weights.values() if w <= seen) / math.comb(n, col))


def newcombe_paired(n11: int, n10: int, n01: int, n00: int, *, z: float = Z95) -> tuple[float, float]:
    """Newcombe's interval (1998, method 10) for p_a - p_b from paired outcomes, built from two Wilson intervals.

    n11: both arms right; n10: only a; n01: only b; n00: neither. The Wilson half-widths of the two rates
    are combined as for independent rates, less a correction for their correlation (phi, continuity-
    corrected as in Fagerland, Lydersen and Laake, Statistical Analysis of Contingency Tables, ch. 8).
    """
    _counts(n11, n10, n01, n00)
    n = n11 + n10 + n01 + n00
    if n == 0:
        return -1.0, 1.0
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    la, ua = wilson(n11 + n10, n, z=z)
    lb, ub = wilson(n11 + n01, n, z=z)
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    cross = n11 * n00 - n10 * n01
    phi = 0.0 if margins == 0 or 0 <= cross <= n / 2 else (cross - n / 2 if cross > 0 else cross) / math.sqrt(margins)
    low = (pa - pb) - math.sqrt(max(0.0, (pa - la) ** 2 - 2 * phi * (pa - la) * (ub - pb) + (ub - pb) ** 2))
    high = (pa - pb) + math.sqrt(max(0.0, (ua - pa) ** 2 - 2 * phi * (ua - pa) * (pb - lb) + (pb - lb) ** 2))
    return max(-1.0, low), min(1.0, high)
