"""Atlas episodes for inspect_ai: which tickets become samples, the conditions each runs under, and the
replay that rebuilds an episode's Atlas (world, trace, transcript) from its inspect log for the grader.

The replay re-dispatches every answered tool call on a fresh session and checks each result against the
text the model was shown, so a log scored later is graded on the state it really produced. Chapter 11.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal, Sequence, get_args

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.util import StoreModel

from ...agent import LOOP_BROKEN_REPLY
from ...types.sets import StopReason
from ...dispatch.breaker import LoopBreak
from ...atlas.tickets import ALL_TICKETS, IMPLICIT_TICKETS, TICKETS, Ticket
from ...atlas.session import Session, atlas_session
from ...atlas.grade import SimpleRun
from ...types.sets import JSONObject, StyleName
from ...types.api import Message, ToolResultBlock, ToolUseBlock
from .messages import assistant_blocks, tool_use_blocks
from ...types.exceptions import AtlasKitError, AtlasKitValueError
from ...shim import PrerequisiteError

TicketSet = Literal["core", "implicit", "all"]
_SETS: dict[str, dict[str, Ticket]] = {"core": TICKETS, "implicit": IMPLICIT_TICKETS, "all": ALL_TICKETS}


class ArgumentError(AtlasKitValueError, PrerequisiteError):
    """A task or model argument that cannot be used: one line saying what to pass instead. A PrerequisiteError,
    so inspect's CLI prints the line alone (atlas_kit/shim.py)."""

    def __init__(self, message: str) -> None:
        AtlasKitValueError.__init__(self, message)
        self.message = message


class ReplayMismatch(AtlasKitError):
    """The log's tool results differ from what Atlas gives for the same calls under the sample's conditions."""


class AtlasEpisode(StoreModel):
    """What the solver leaves in the sample's store for the scorer: why the run stopped and its model calls."""

    stop_reason: StopReason | Literal[""] = ""  # "" until the solver ends the run (one of inspect's limits may first)
    steps: int = 0


@dataclass(frozen=True)
class EpisodeSpec:
    """The conditions of one sample: its ticket, error style, faults, loop breaker and base seed.

    Epoch n (from 1) runs with seed + n - 1: epoch 1 is `atlas-kit experiment`'s trial 0, and so on.
    """

    ticket: str
    style: StyleName = "contract"
    faults: bool = True
    loop_breaker: bool = True
    seed: int = 0

    def metadata(self) -> JSONObject:
        """The spec as a sample's metadata (EpisodeSpec.of reads it back)."""
        return asdict(self)

    @classmethod
    def of(cls, metadata: JSONObject) -> EpisodeSpec:
        """The spec stored in a sample's metadata."""
        try:
            return cls(**{name: metadata[name] for name in ("ticket", "style", "faults", "loop_breaker", "seed")})
        except KeyError as missing:
            raise AtlasKitValueError(f"This sample's metadata lacks {missing}; it was not made by atlas_kit's atlas task.") from None

    def session(self, *, epoch: int = 1) -> Session:
        """A fresh Atlas session for this sample's `epoch` (from 1)."""
        return atlas_session(self.ticket, style=self.style, faults=self.faults, seed=self.seed + epoch - 1,
                             break_loops=self.loop_breaker)


def select_tickets(tickets: str | Sequence[str]) -> list[Ticket]:
    """Tickets by set name ("core", "implicit", "all") or by id ("T01,T05" or a list); unknown ids are refused."""
    if isinstance(tickets, str) and tickets.strip() in _SETS:
        return list(_SETS[tickets.strip()].values())
    ids = [t.strip() for t in tickets.split(",")] if isinstance(tickets, str) else [str(t).strip() for t in tickets]
    ids = [t for t in ids if t]
    unknown = [t for t in ids if t not in ALL_TICKETS]
    if unknown or not ids:
        shown = ",".join(unknown) if unknown else str(tickets)
        raise ArgumentError(f"-T tickets={shown}: not a ticket set or ticket id; pass {', '.join(get_args(TicketSet))}, "
                         f"or ids from T01 to {list(ALL_TICKETS)[-1]} such as T01,T05.")
    return [ALL_TICKETS[t] for t in dict.fromkeys(ids)]


def atlas_dataset(tickets: Sequence[Ticket], *, style: StyleName, faults: bool, loop_breaker: bool,
                  seed: int) -> MemoryDataset:
    """One sample per ticket: the customer's message as input, the conditions in metadata."""
    samples = [Sample(input=t.message, id=t.id,
                      metadata={**EpisodeSpec(t.id, style, faults, loop_breaker, seed).metadata(), "title": t.title,
                                "customer": t.customer})
               for t in tickets]
    return MemoryDataset(samples, name="atlas")


def replay(spec: EpisodeSpec, messages: Sequence[ChatMessage], *, epoch: int, stop_reason: StopReason) -> SimpleRun:
    """Rebuild the episode for `grade`: dispatch each answered assistant turn again and compare every result.

    The transcript handed to the grader is in Anthropic blocks, as atlas_kit's own agent loop keeps it.
    Raises ReplayMismatch when a call is answered only in part, or Atlas now answers it differently.
    """
    session = spec.session(epoch=epoch)
    answered = {m.tool_call_id: m for m in messages if isinstance(m, ChatMessageTool)}
    users = [m for m in messages if isinstance(m, ChatMessageUser)]
    transcript: list[Message] = [{"role": "user", "content": users[0].text if users else session.ticket.message}]
    final: str = ""
    broke: LoopBreak | None = None
    for message in messages:
        if not isinstance(message, ChatMessageAssistant):
            continue
        if broke:
            raise ReplayMismatch("the log goes on after the loop breaker stopped the run")
        transcript.append({"role": "assistant", "content": list(assistant_blocks(message))})
        final = message.text
        blocks = tool_use_blocks(message)
        shown = [(block, answered[block["id"]]) for block in blocks if block["id"] in answered]
        if not shown:
            continue
        if len(shown) != len(blocks):
            raise ReplayMismatch(f"only {len(shown)} of the {len(blocks)} tool calls in one turn were answered")
        out = session.dispatcher.dispatch(blocks)
        _compare(shown, out.results)
        transcript.append({"role": "user", "content": [*out.results]})
        broke = out.loop_break
    if broke is not None and stop_reason != "loop_broken":
        raise ReplayMismatch(f"the loop breaker stops this run, but the log says it ended with {stop_reason}")
    if stop_reason == "loop_broken":
        final = LOOP_BROKEN_REPLY
        if broke is not None:  # the hand-off the agent loop records when it breaks a loop (agent.py)
            session.trace.add("escalated", reason="loop_broken", tool=broke.tool, code=broke.error)
    elif stop_reason in ("step_limit", "cost_limit"):
        final = ""
    return SimpleRun(session.ticket, session.world, session.trace, transcript, final, stop_reason, session.faults)


def _compare(shown: list[tuple[ToolUseBlock, ChatMessageTool]], results: list[ToolResultBlock]) -> None:
    """Each call's result now must be the one the log shows the model, failed or not; else ReplayMismatch."""
    by_id = {r["tool_use_id"]: r for r in results}
    for block, logged in shown:
        result = by_id.get(block["id"])
        failed = result is not None and bool(result.get("is_error"))
        if result is None or result["content"] != logged.text or failed != (logged.error is not None):
            raise ReplayMismatch(f"{block['name']} (call {block['id']}) now answers differently from the log")
