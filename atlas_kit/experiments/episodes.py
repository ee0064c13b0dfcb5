"""What a sweep runs: episodes (a condition, a ticket, a trial and its seed), the stand-in's profiles, and the plan.

Options are checked here, once, with messages that name the parameter and the accepted values. An episode's
session and its record are made here too, for every way of running it; the running lives in experiments.py
(one call at a time) and batch.py (the Message Batches API). Taught in chapter 11.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..agent import Run
from ..atlas.tickets import ALL_TICKETS
from ..dispatch.styles import STYLES
from ..atlas.session import Session, atlas_session
from ..atlas.grade import grade
from ..models.standin.model import DEFAULT_PROFILE, OFFLINE_MODEL, Profile
from .results import Condition, episode_key, harness_record, record_from_run
from ..types.sets import MAX_EPISODES
from ..types.records import Record, Source
from ..types.exceptions import AtlasKitValueError



@dataclass(frozen=True)
class Episode:
    """One run to do: a condition, a ticket and a trial. Trial n runs with seed first_seed + n."""

    condition: Condition
    ticket: str
    trial: int
    first_seed: int = 0

    @property
    def key(self) -> str:
        """The episode's stable id in a results file (results.episode_key)."""
        return episode_key(self.condition, self.ticket, self.trial, seed=self.seed)

    @property
    def seed(self) -> int:
        """The seed this trial runs with: first_seed + trial."""
        return self.first_seed + self.trial


def episode_session(episode: Episode) -> Session:
    """A fresh Atlas session of the episode's ticket, under its condition and with its seed."""
    c = episode.condition
    return atlas_session(episode.ticket, style=c.style, faults=c.faults, seed=episode.seed, break_loops=c.break_loops)


def episode_record(episode: Episode, run: Run, *, experiment: str = "") -> Record:
    """The graded record of one finished run of `episode`."""
    return record_from_run(run, grade(run), condition=episode.condition, ticket=episode.ticket, trial=episode.trial,
                           seed=episode.seed, experiment=experiment)


def harness_failure(episode: Episode, exc: BaseException, *, source: Source | None,
                    experiment: str = "") -> Record:
    """The record of an episode the harness could not finish (it raised): kept, so the sweep goes on and says so."""
    return harness_record(exc, condition=episode.condition, ticket=episode.ticket, trial=episode.trial,
                          seed=episode.seed, source=source, experiment=experiment)


def named_profiles() -> dict[str, Profile]:
    """The stand-in's named profiles (offline.PROFILES); a Profile object works too."""
    from ..models.standin.model import PROFILES

    return {name: PROFILES[name] for name in sorted(PROFILES)}


def profile_named(profile: Profile | str | None) -> Profile:
    """A Profile from a name, a Profile, or None (the default profile)."""
    if profile is None:
        return DEFAULT_PROFILE
    if isinstance(profile, Profile):
        return profile
    known = named_profiles()
    if profile not in known:
        raise AtlasKitValueError(f"profile {profile!r} is not one of: {', '.join(known)}; or pass an offline.Profile.")
    return known[profile]


def plan(*, styles: Sequence[str], faults: Sequence[bool], break_loops: Sequence[bool],
         profiles: Sequence[Profile | str | None], tickets: Sequence[str], trials: int, model: str,
         first_seed: int = 0) -> list[Episode]:
    """Every episode of a sweep, in a fixed order: conditions, then tickets, then trials."""
    check_options(styles=styles, faults=faults, break_loops=break_loops, tickets=tickets, trials=trials,
                  first_seed=first_seed, profiles=len(profiles) if model == OFFLINE_MODEL else 1)
    if model != OFFLINE_MODEL:
        names: list[str | None] = [None]
    else:
        resolved: dict[str, Profile] = {}
        for p in map(profile_named, profiles):
            if resolved.setdefault(p.name, p) != p:
                raise AtlasKitValueError(f"two profiles are named {p.name!r}; give each its own name, which goes into "
                                 "every episode's key.")
        names = list(resolved)
    conditions = [Condition(s, bool(f), bool(b), p, model)
                  for s, f, b, p in itertools.product(styles, faults, break_loops, names)]
    episodes = [Episode(c, t, n, first_seed) for c in conditions for t in tickets for n in range(trials)]
    return list({e.key: e for e in episodes}.values())  # a repeated option value must not run twice


def check_options(*, styles: Sequence[str], faults: Sequence[bool], break_loops: Sequence[bool],
                  tickets: Sequence[str], trials: int, first_seed: int = 0, profiles: int = 1) -> None:
    """Refuse a sweep option that is not accepted, naming it and what is, and a plan above MAX_EPISODES
    (`profiles`: how many of the stand-in's profiles it runs, 1 for any other model)."""
    _check(styles, "styles", STYLES)
    _check(tickets, "tickets", ALL_TICKETS)  # the core 27 and chapter 14's implicit-failure tickets
    _check(faults, "faults", (True, False))
    _check(break_loops, "break_loops", (True, False))
    whole_number(trials, "trials")
    if isinstance(first_seed, bool) or not isinstance(first_seed, int) or first_seed < 0:
        raise AtlasKitValueError(f"first_seed must be a whole number of 0 or more; got {first_seed!r}.")
    cells = len(set(styles)) * len(set(faults)) * len(set(break_loops)) * max(1, profiles) * len(set(tickets))
    if cells * trials > MAX_EPISODES:  # checked before anything is built: a plan this big would not fit in memory
        raise AtlasKitValueError(f"trials={trials:,} plans {cells * trials:,} episodes ({cells:,} conditions and tickets × "
                         f"{trials:,} trials), more than the {MAX_EPISODES:,} one sweep may hold (episodes.MAX_EPISODES:"
                         f" a sweep keeps its plan and results in memory); give at most {MAX_EPISODES // cells:,} "
                         "trials, or split the design into several sweeps (--name, --tickets, --first-seed).")


def _check(values: Sequence[object], name: str, accepted: Iterable[object]) -> None:
    accepted = list(accepted)
    if isinstance(values, (str, bytes)) or not values:
        raise AtlasKitValueError(f"{name} must be a non-empty list drawn from: {', '.join(map(str, accepted))}; got {values!r}.")
    wrong = [v for v in values if not any(type(v) is type(a) and v == a for a in accepted)]
    if wrong:
        raise AtlasKitValueError(f"{name}: {', '.join(map(repr, wrong))} not accepted; use values from: "
                         f"{', '.join(map(str, accepted))}.")


def whole_number(value: object, name: str) -> int:
    """`value` if it is a whole number of at least 1 (not a bool), else ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AtlasKitValueError(f"{name} must be a whole number of at least 1; got {value!r}.")
    return value
