"""The `atlas` task: every Atlas ticket as an inspect sample, worked by the Atlas agent and graded by atlas_kit.

`inspect eval atlas_kit/atlas --model anthropic/claude-sonnet-5-5 -T style=contract -T faults=true` runs it;
the task parameters are the experiment's conditions (style, faults, tickets, loop breaker, step bound, seed).
Registered through inspect's entry point (registry.py). Chapter 11 says when to use it.
"""
from __future__ import annotations

from typing import Sequence

from inspect_ai import Task, task

from ...dispatch.styles import STYLES
from .episode import ArgumentError, atlas_dataset, select_tickets
from .scorer import atlas_grade
from .solver import atlas_agent

_TRUE, _FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")


@task
def atlas(style: str = "contract", faults: bool | str = True, tickets: str | Sequence[str] = "core",
          loop_breaker: bool | str = True, max_steps: int = 12, seed: int = 0) -> Task:
    """Atlas's support tickets under one condition.

    style: a name in the style registry (raw, generic, plain, contract), the wording of every failure the model reads.
    faults: true runs each ticket with its induced failures; false, without (the paired control).
    tickets: core (T01-T27), implicit (T28-T39), all, or ids such as T01,T05.
    loop_breaker: stop a run when the same (tool, arguments, error) fails twice.
    max_steps: the most model calls per episode. seed: the base seed; epoch n adds n - 1.
    """
    if style not in STYLES:
        raise ArgumentError(f"-T style={style}: choose one of {', '.join(STYLES)}.")
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise ArgumentError(f"-T max_steps={max_steps}: give a whole number of model calls, 1 or more (atlas_kit uses 12).")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArgumentError(f"-T seed={seed}: give a whole number.")
    chosen = select_tickets(tickets)
    on, breaker = _flag("faults", faults), _flag("loop_breaker", loop_breaker)
    return Task(
        dataset=atlas_dataset(chosen, style=style, faults=on, loop_breaker=breaker, seed=seed),
        solver=atlas_agent(max_steps=max_steps),
        scorer=atlas_grade(),
        metadata={"style": style, "faults": on, "loop_breaker": breaker, "max_steps": max_steps, "seed": seed,
                  "tickets": [t.id for t in chosen]},
    )


def _flag(name: str, value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ArgumentError(f"-T {name}={value}: give true or false.")
