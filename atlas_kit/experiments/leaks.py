"""The leak audit of a design: does any error text state what a task's final answer must give?

An error that states the answer turns a comparison of recovery into one of reading, so presets.py refuses a
design with one. Reads the errors the tools really return, on the scripted path and on the stand-in's run; what
the arms are is the preset's. Chapter 11.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..agent import run_agent
from ..atlas.outcome import Lookup
from ..atlas.tickets import Ticket, ticket
from ..atlas.data import World
from ..atlas.session import atlas_session, play
from ..atlas.formats import money
from ..models.standin.model import OFFLINE_MODEL, offline_client


@dataclass(frozen=True)
class Leak:
    """An error text that states something the task's final answer must give and the customer did not."""

    ticket: str
    style: str
    seed: int
    answer: str
    error: str

    def __str__(self) -> str:
        return f"{self.ticket} ({self.style}, seed {self.seed}): an error states {self.answer!r}: {self.error[:160]}"


def _plain(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text).replace("$", "").lower()


def _states(text: str, answer: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(_plain(answer)) + r"(?![0-9])", _plain(text)) is not None


def expected_answers(t: Ticket, world: World) -> tuple[str, ...]:
    """What the final answer (or end state) must give that the customer's message does not: facts, refund ids,
    amounts (as dollars and as cents) and quantities. The route to it (a tool, a queue) is the recovery, not the answer."""
    outcome = t.outcome(faults=True)
    found: list[str] = []
    for fact in outcome.facts:
        for option in fact if isinstance(fact, tuple) else (fact,):
            found.append(option.resolve(world) if isinstance(option, Lookup) else option)
    for refund in outcome.refunds:
        ids = (refund.invoice_id,) if isinstance(refund.invoice_id, str) else refund.invoice_id
        found += [*ids, money(refund.amount_cents)]
        if not _states(t.message, money(refund.amount_cents)):
            found.append(str(refund.amount_cents))
    found += [str(c.quantity) for c in outcome.changes if c.quantity is not None]
    return tuple(dict.fromkeys(a for a in found if not _states(t.message, a)))


def _error_texts(messages: Sequence[Mapping[str, object]]) -> list[str]:
    texts = []
    for m in messages:
        blocks = m.get("content")
        for block in blocks if isinstance(blocks, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
                content = block.get("content", "")
                texts.append(content if isinstance(content, str) else
                             "".join(b.get("text", "") for b in content if isinstance(b, dict)))
    return texts


def find_leaks(tickets: Sequence[str], *, styles: Sequence[str], seeds: Sequence[int]) -> list[Leak]:
    """Every error text, in each style and seed, that states one of its ticket's expected answers ([] is a pass)."""
    leaks: list[Leak] = []
    for tid in tickets:
        for style in styles:
            for seed in seeds:
                scripted = play(atlas_session(tid, style=style, faults=True, seed=seed))
                standin = run_agent(offline_client(seed=seed), atlas_session(tid, style=style, faults=True, seed=seed),
                                    model=OFFLINE_MODEL)
                answers = expected_answers(ticket(tid), scripted.world)
                for text in _error_texts(scripted.messages) + _error_texts(standin.messages):
                    leaks += [Leak(tid, style, seed, a, text) for a in answers if _states(text, a)]
    return list(dict.fromkeys(leaks))
