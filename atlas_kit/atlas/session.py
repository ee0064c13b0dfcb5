"""One ticket, ready to run: a fresh World, the customer's tools behind a Dispatcher, and a system prompt.

The dispatcher's retry sleep advances the World's virtual clock, so retries cost no
wall time. `play` replays a list of tool calls (a ticket's script, or a hand-built run)
and returns what the grader reads. The agent loop that drives a model lives elsewhere. Chapter 10.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..dispatch.dispatcher import Dispatcher, ToolDispatcher
from ..dispatch.transient import RetryPolicy
from ..dispatch.trace import Trace
from ..types.api import Block, Message, ToolDefinition
from .audience import AUDIENCE
from .data import World
from .faults import Fault, FaultSchedule
from .grade import SimpleRun
from .outcome import Call, Script
from ..dispatch.styles import Style, contract_style
from ..dispatch.styles import style_named
from .tickets import TICKETS, Ticket, ticket
from .tools import build_tools
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

_SYSTEM = """You are the support agent for Atlas, a billing and catalogue company. You are acting for the customer "{customer}" and may only work on that customer's accounts, invoices and orders.

Use the tools to look things up and make changes, and state only figures the tools gave you, written as they give them (such as $120.00). Make each change once: refunds, order changes and escalations are real.

Some actions have policy limits; when one applies, the tool says so and what to do instead. If a tool fails, read what it says before doing anything else. If something cannot be done, tell the customer plainly what happened and what they can do next.

Reply to the customer in a few short, plain sentences."""


@dataclass
class Session:
    """One ticket ready to run: its world, a dispatcher over its tools (faults wrapped in), and the system prompt."""

    ticket: Ticket
    world: World
    dispatcher: ToolDispatcher  # a Dispatcher; chapter 13 puts its own in place (course/byo/harness.py)
    system: str
    style: str  # the style's name, as the agent loop and the charts record it
    faults: bool
    schedule: FaultSchedule | None

    @property
    def trace(self) -> Trace:
        return self.dispatcher.trace

    @property
    def message(self) -> str:
        """The customer's message: what the agent loop sends first."""
        return self.ticket.message

    def tools(self) -> list[ToolDefinition]:
        """The tool definitions to send with each request."""
        return self.dispatcher.definitions()


def atlas_session(
    ticket_or_id: Ticket | str,
    *,
    style: str | Style = "contract",
    faults: bool | Iterable[Fault] = True,
    seed: int = 0,
    break_loops: bool = True,
    customer: str | None = None,
    retry_attempts: int = 3,
) -> Session:
    """A fresh run of one ticket. `faults`: True for the ticket's own, False for none, or your own list.

    `customer` overrides the tenant the agent acts for (to show a boundary); it defaults to the ticket's.
    `retry_attempts`: the harness's attempts per transient failure (1 turns harness retries off).
    """
    if not isinstance(retry_attempts, int) or retry_attempts < 1:
        raise AtlasKitValueError("retry_attempts must be a whole number of at least 1 (1 means no harness retries).")
    t = ticket(ticket_or_id) if isinstance(ticket_or_id, str) else ticket_or_id
    if not isinstance(t, Ticket):
        raise AtlasKitTypeError(f"atlas_session takes a Ticket or a ticket id such as 'T01'; got {type(t).__name__}.")
    world = World(seed)
    tools = build_tools(world, tenant=customer or t.customer)
    chosen = t.faults if faults is True else () if faults is False else tuple(faults)
    trace, worded = Trace(), style_named(style)
    # A tool written to the contract says when its answer is incomplete or old; raw and generic tools do not.
    schedule = FaultSchedule(chosen, seed=seed, explicit=worded is contract_style, trace=trace) if chosen else None
    if schedule is not None:
        tools = schedule.wrap(tools)
    dispatcher = Dispatcher(tools, retry=RetryPolicy(attempts=retry_attempts, sleep=world.advance), trace=trace,
                            style=worded, break_loops=break_loops, run_id=f"{t.id}-s{seed}", audience=AUDIENCE)
    name = style if isinstance(style, str) else getattr(style, "__name__", "custom")
    return Session(t, world, dispatcher, _SYSTEM.format(customer=customer or t.customer), name,
                   faults is True or bool(chosen), schedule)


def play(
    session: Session,
    turns: Iterable[Call | tuple[Call, ...]] | None = None,
    final: str | None = None,
    *,
    stop_reason: str = "finished",
) -> SimpleRun:
    """Dispatch assistant turns of tool calls and return the run; with no turns, the ticket's own script.

    Stops early with stop_reason 'loop_broken' when the dispatcher breaks a loop.
    """
    script: Script | None = None
    if turns is None:
        script = session.ticket.plan(faults=session.faults)
        turns = script.batches()
    messages: list[Message] = [{"role": "user", "content": session.ticket.message}]
    n = 0
    for turn in turns:
        batch = turn if isinstance(turn, tuple) else (turn,)
        uses: list[Block] = []
        for c in batch:
            n += 1
            uses.append({"type": "tool_use", "id": f"toolu_{n:03d}", "name": c.tool, "input": dict(c.input)})
        messages.append({"role": "assistant", "content": uses})
        out = session.dispatcher.dispatch(uses)
        messages.append({"role": "user", "content": [*out.results]})
        if out.loop_break is not None:
            stop_reason = "loop_broken"
            break
    if final is None:
        final = script.answer(session.world, session.ticket.outcome(faults=session.faults).facts) if script else ""
    messages.append({"role": "assistant", "content": [{"type": "text", "text": final}]})
    return SimpleRun(session.ticket, session.world, session.trace, messages, final, stop_reason, session.faults)
