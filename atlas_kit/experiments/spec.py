"""What a sweep runs, as one frozen value: the conditions, the model, where results go, and its limits.

`SweepSpec` is shared by `run_experiment`/`sweep`, the `atlas-kit experiment` command and the presets; its
checks run once, when it is made, and say which option is wrong and what it accepts. `SweepOptions` is the same
set of options as keyword arguments (a test keeps the two in step). Chapter 11.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Callable, Literal, Sequence, TypedDict

from ..agent import Bounds
from ..atlas.tickets import TICKETS
from ..models.pricing import Estimate
from ..models.standin.model import Profile
from .episodes import check_options, whole_number
from ..types.exceptions import AtlasKitValueError

Via = Literal["messages", "batch"]
"""One call at a time (`messages`), or every turn of every episode in one Message Batch (`batch`)."""


@dataclass(frozen=True)
class SweepSpec:
    """One sweep: styles × faults × break_loops × profiles × tickets × trials (at most episodes.MAX_EPISODES
    episodes), and how to run it.

    model: "offline" (the stand-in), a Claude model, or a local one ("ollama:qwen3:4b"; base_url for another
    server); with no API key a Claude name falls back to the stand-in, with a warning, and the records say
    simulated. cassette: replay a sweep recorded with record=. out: the JSONL file; episodes already in it are
    skipped (those that ended at the API are rerun), each new one is appended the moment it ends; it must hold
    results of the same source. profiles apply to the stand-in only. concurrency: live and replayed runs at a
    time (None: 16 on Anthropic's API, 1 on a local server; a live sweep fans out once one episode got through);
    offline runs are sequential. first_seed: trial n runs with seed first_seed + n. record: write every live call
    to this cassette, each tagged with its episode, one episode at a time in plan order; the path is tried first,
    and the calls are kept beside `out` too (RESULTS.jsonl.tape), so the cassette holds every episode of the
    results whichever run recorded it. max_cost_usd: refuse a live sweep whose high estimate is above it, and stop
    one run at that spend (default: the limit `setup(max_cost_usd=...)` set, else $1). budget_usd: a total for
    `out` (what its live episodes already cost, plus this run): the sweep stops cleanly once it is spent, and is
    refused when it already is. confirm: asked with the estimate before a live sweep starts; False refuses it. via: "messages"
    or "batch" (the Message Batches API, at the batch price, resumable from a journal beside `out`).
    """

    name: str
    styles: Sequence[str] = ("raw", "generic", "contract")
    faults: Sequence[bool] = (True, False)
    break_loops: Sequence[bool] = (True,)
    profiles: Sequence[Profile | str | None] = (None,)
    tickets: Sequence[str] | None = None
    trials: int = 5
    first_seed: int = 0
    model: str = "offline"
    base_url: str | None = None
    cassette: str | os.PathLike[str] | None = None
    record: str | os.PathLike[str] | None = None
    out: str | os.PathLike[str] | None = None
    concurrency: int | None = None
    progress: bool = True
    bounds: Bounds | None = None
    max_cost_usd: float | None = None
    budget_usd: float | None = None
    confirm: Callable[[Estimate], bool] | None = None
    via: Via = "messages"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise AtlasKitValueError(f"name must be a non-empty name for the sweep, such as 'styles'; got {self.name!r}.")
        for option in ("styles", "faults", "break_loops", "profiles", "tickets"):
            value = getattr(self, option)
            if isinstance(value, list):  # a list from a notebook or papermill: kept as the tuple it stands for
                object.__setattr__(self, option, tuple(value))
        check_options(styles=self.styles, faults=self.faults, break_loops=self.break_loops, tickets=self.ticket_ids,
                      trials=self.trials, first_seed=self.first_seed, profiles=len(self.profiles))
        if self.concurrency is not None:
            whole_number(self.concurrency, "concurrency")
        if self.out is not None and os.path.isdir(self.out):
            raise AtlasKitValueError(f"out={os.fspath(self.out)!r} is a folder; pass the results file, such as "
                             "'results/sweep.jsonl'.")
        if self.record is not None and self.cassette is not None:
            raise AtlasKitValueError("pass record= (to record a live sweep) or cassette= (to replay one), not both.")
        if self.via not in ("messages", "batch"):
            raise AtlasKitValueError(f"via must be 'messages' (one call at a time) or 'batch' (the Message Batches API); "
                             f"got {self.via!r}.")
        if self.via == "batch" and (self.record is not None or self.cassette is not None):
            raise AtlasKitValueError("via='batch' runs offline or live; cassettes record and replay via='messages' sweeps only.")

    @property
    def ticket_ids(self) -> Sequence[str]:
        """The tickets it runs: the 27 core ones unless `tickets` names others."""
        return tuple(TICKETS) if self.tickets is None else self.tickets


class SweepOptions(TypedDict, total=False):
    """SweepSpec's fields as keyword arguments (`run_experiment(name=..., trials=...)`)."""

    name: str
    styles: Sequence[str]
    faults: Sequence[bool]
    break_loops: Sequence[bool]
    profiles: Sequence[Profile | str | None]
    tickets: Sequence[str] | None
    trials: int
    first_seed: int
    model: str
    base_url: str | None
    cassette: str | os.PathLike[str] | None
    record: str | os.PathLike[str] | None
    out: str | os.PathLike[str] | None
    concurrency: int | None
    progress: bool
    bounds: Bounds | None
    max_cost_usd: float | None
    budget_usd: float | None
    confirm: Callable[[Estimate], bool] | None
    via: Via


SPEC_FIELDS = tuple(f.name for f in fields(SweepSpec))
