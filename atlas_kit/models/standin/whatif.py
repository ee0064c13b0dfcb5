"""The what-if simulator: episodes whose outcome is set by follow rates you choose, one per error style, not by any
model. A rate is the chance that the simulated model takes the move the failure calls for (the branch a contract's
`next` names) when the error is worded in that style; such an episode ends correct, any other ends wrong. Each
rate says where it comes from: a published measurement, or an assumed rate. Chapters 01 and 11.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal, Mapping, Sequence

from ...types import STYLE_NAMES, StyleName, TableRows
from ...types.exceptions import AtlasKitValueError

__all__ = ["ASSUMED", "PUBLISHED_GAP", "SET_BY", "STANDIN_NOTE", "Followed", "FollowRate", "WhatIf",
           "simulate", "what_if"]

ASSUMED = "an assumed rate"
"""The basis of a rate nobody measured: the simulator's default where no published figure exists."""
PUBLISHED_GAP = (0.367, 0.400)
"""arXiv 2606.05037 (a pilot, N = 30 per cell): task completion with structured recovery suggestions minus completion
with plain-English diagnoses, on Anthropic models (not significant on gpt-4o-mini)."""
SET_BY = "simulated: the result is set by the assumed rates"
"""What every chart or table of a simulated style comparison says, in itself."""
STANDIN_NOTE = f"{SET_BY} (the stand-in's rules and its profile's weights), not a finding"
"""The note for a comparison of styles run on the rule-based stand-in (models/standin/model.py)."""
_CONTRACT = 0.9  # assumed: no study gives a model's rate of following a contract's next


@dataclass(frozen=True)
class FollowRate:
    """One style's rate, a chance between 0 and 1, and its basis: where the number comes from, in words."""

    value: float
    basis: str

    def __post_init__(self) -> None:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0 or math.isnan(v):
            raise AtlasKitValueError(f"a follow rate must be a chance between 0 and 1; got {v!r}.")


@dataclass(frozen=True)
class WhatIf:
    """The rates of one what-if, one per style; `rows` lays them out with their bases."""

    rates: Mapping[StyleName, FollowRate]

    def rate(self, style: StyleName) -> FollowRate:
        if style not in self.rates:
            raise AtlasKitValueError(f"style {style!r} has no rate here; give one of: {', '.join(self.rates)}.")
        return self.rates[style]

    def rows(self) -> TableRows:
        """Each style's rate and its basis."""
        return TableRows(["style", "follow rate", "where the rate comes from"],
                         [[s, f"{r.value:.2f}", r.basis] for s, r in self.rates.items()],
                         f"The what-if's rates. {SET_BY}, not by any model.")


Evidence = Literal["anthropic", "gpt-4o-mini"]


def what_if(*, contract: float | None = None, plain: float | None = None, raw: float | None = None,
            generic: float | None = None, published: Evidence = "anthropic") -> WhatIf:
    """A what-if's rates: each one you give is yours ("your assumed rate"); each left as None takes its default.

    The contract's default is an assumed 0.9. The plain default is the contract's rate less the middle of
    arXiv 2606.05037's gap on Anthropic models (`published="anthropic"`), or equal to it (`"gpt-4o-mini"`, where
    the paper found no significant difference, read as a gap of 0: itself an assumption). Raw and generic have no
    published figure: their defaults equal plain's, as assumed rates.
    """
    if published not in ("anthropic", "gpt-4o-mini"):
        raise AtlasKitValueError(f"published must be 'anthropic' or 'gpt-4o-mini'; got {published!r}.")
    yours = "your assumed rate"
    top = FollowRate(contract, yours) if contract is not None else FollowRate(_CONTRACT, ASSUMED)
    if plain is not None:
        base = FollowRate(plain, yours)
    elif published == "anthropic":
        gap = sum(PUBLISHED_GAP) / 2
        base = FollowRate(max(0.0, round(top.value - gap, 4)),
                          f"published: the contract's rate less {gap * 100:.2f} points, the middle of the gap "
                          "arXiv 2606.05037 measured on Anthropic models (N = 30 per cell)")
    else:
        base = FollowRate(top.value, "the contract's rate: arXiv 2606.05037 found no significant difference on "
                                     "gpt-4o-mini (N = 30 per cell), read here as none")
    def other(value: float | None) -> FollowRate:
        return FollowRate(value, yours) if value is not None else FollowRate(base.value, f"{ASSUMED}: plain's, "
                                                                                          "for want of a measurement")
    return WhatIf({"raw": other(raw), "generic": other(generic), "plain": base, "contract": top})


@dataclass(frozen=True)
class Followed:
    """One simulated episode: its style, task and trial, and whether the simulated model followed (correct)."""

    style: StyleName
    task: int
    trial: int
    followed: bool


def simulate(whatif: WhatIf, *, styles: Sequence[StyleName] = STYLE_NAMES, tasks: int = 10, trials: int = 3,
             seed: int = 0) -> list[Followed]:
    """Every (style, task, trial) episode, styles in the order given, each drawn with its style's rate. Each style
    draws from a generator of its own, seeded by (seed, style): one style's draws never move when another style's
    rate changes, and nothing ties one arm's draw to another's (the simulator assumes no correlation between arms)."""
    for name, value in (("tasks", tasks), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise AtlasKitValueError(f"{name} must be a whole number of at least 1; got {value!r}.")
    unknown = [s for s in styles if s not in STYLE_NAMES]
    if unknown or not styles or len(set(styles)) != len(styles):
        raise AtlasKitValueError(f"styles must be distinct names drawn from {', '.join(STYLE_NAMES)}; got "
                                 f"{list(styles)!r}.")
    episodes = []
    for s in styles:
        rng, rate = random.Random(f"{seed}:{s}"), whatif.rate(s).value
        episodes += [Followed(s, t, n, rng.random() < rate) for t in range(tasks) for n in range(trials)]
    return episodes
