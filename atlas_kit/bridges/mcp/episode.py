"""One Atlas episode served over MCP: a ticket opened by a prompt, every `tools/call` through the
Dispatcher, the answer handed in with `finish`, graded, and written as a results record.

No MCP wire here (that is server.py) and no model (host.py drives the stand-in). Chapter 15.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, TypedDict

from ...contract.arguments import ArgumentProblem, check_arguments
from ...atlas.faults import Fault
from ...atlas.grade import Grade, grade
from ...atlas.session import Session, atlas_session
from ...atlas.tickets import Ticket
from ...atlas.data import World
from ...atlas.verdict import plain_reasons
from ...contract.errors import ErrorCode, stop, tool_error
from ...dispatch.breaker import canonical_args
from ...dispatch.dispatcher import argument_error
from ...dispatch.styles import Failure
from ...experiments.results import Condition, harness_record, record_from_run
from ...dispatch.trace import Trace
from ...contract.redaction import redact
from ...types.sets import JSONObject
from ...types.api import Message, ToolDefinition, ToolUseBlock
from ...types.records import Record, Source
from ...types.walk import result_text
from ...contract.vocab import MCPResult, text_to_mcp, to_mcp
from .wording import call_result
from ...types.exceptions import AtlasKitValueError

FINISH = "finish"
# What the log keeps of one call's arguments (as JSON) and of its result: a model may send a megabyte, and a log
# that kept it whole would grow without bound (and so would the server's memory of its records).
CALL_LOG_CHARS = 2_000
_REDACT_MARGIN = 200  # redacted a little past the cut, so a secret the cut crosses is still hidden
_FINISH_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "minLength": 1, "maxLength": 4000,
                   "description": "Your reply to the customer, exactly as they should read it."},
        "model": {"type": "string", "maxLength": 80, "examples": ["claude-sonnet-4-5"],
                  "description": "The model you are, if you know it; it labels the episode in the learner's log."},
    },
    "required": ["answer"],
    "additionalProperties": False,
}
_FINISH_TEXT = ("Hand in your final reply to the customer when the ticket is done: the episode is then graded "
                "on Atlas's end state and on this reply. Call it once, last, after any other tools.")
_SAFE = re.compile(r"[^A-Za-z0-9 ._:/@+-]+")


class McpCall(TypedDict):
    """One tools/call as the log keeps it: what was sent and the text the client got back, both redacted.

    arguments: as sent (not always an object), or, when their JSON is longer than CALL_LOG_CHARS, that JSON's first
    CALL_LOG_CHARS characters as a string; result: its first CALL_LOG_CHARS characters. `clipped` says whether
    either was cut, and a cut one ends with " … [cut: N characters in all]".
    """

    tool: str
    arguments: Any
    is_error: bool
    result: str
    clipped: bool


class McpRecord(Record):
    """An MCP episode's line in the log: a results record (types.Record) and what the client did."""

    client: str
    reported_model: str | None
    answer: str
    reasons: list[str]
    calls: list[McpCall]


@dataclass(frozen=True)
class ClientInfo:
    """The MCP client as it reports itself (its `clientInfo`): a name and a version, cleaned for labels."""

    name: str = "unknown-client"
    version: str = ""

    @classmethod
    def reported(cls, name: str | None, version: str | None) -> ClientInfo:
        return cls(_label(name, "unknown-client"), _label(version, ""))

    def __str__(self) -> str:
        return f"{self.name} {self.version}".strip()


class NotHandedIn(Exception):
    """Why an episode has no grade: it closed before `finish` was called."""


def finish_definition() -> ToolDefinition:
    """The `finish` tool, in the same shape as Atlas's own tool definitions."""
    return {"name": FINISH, "description": _FINISH_TEXT, "input_schema": _FINISH_SCHEMA}


def _finish_problem(arguments: object) -> ArgumentProblem | None:
    """What is wrong with `finish`'s arguments: its schema's rules, and an answer of only whitespace (which a
    schema's minLength lets through), refused as a handler would (its raw words a ValueError's)."""
    problem = check_arguments(_FINISH_SCHEMA, arguments)
    if problem is None and isinstance(arguments, dict) and not str(arguments["answer"]).strip():
        return ArgumentProblem("answer", "Argument answer holds only whitespace. Write your reply to the customer in "
                               "it and call finish again.", "ValueError: answer must not be blank")
    return problem


def _finish_reply(ticket: str, style: str, result: Grade) -> str:
    """finish's reply: correct or not, and why in plain words (atlas.verdict.plain_reasons), naming nothing expected."""
    said = "; ".join(plain_reasons(result))
    if result.correct:
        return (f"Handed in. Ticket {ticket}, {style} style: correct. Why: the end state and the answer match the ticket."
                + (f" Also noted: {said}." if said else ""))
    return f"Handed in. Ticket {ticket}, {style} style: not correct. Why: {said or 'the run did not meet the ticket'}."


def no_episode() -> MCPResult:
    """The result for a call when no ticket is open: the harness's own error, always in the contract's words."""
    error = tool_error("mcp", ErrorCode.NOT_PERMITTED,
                       "No Atlas ticket is open, so there is nothing to work on or hand in.",
                       next=stop("Tell the user to pick one of the Atlas ticket prompts, T01 to T27, to start an episode."))
    return to_mcp(error, structured=True)


def logged_call(tool: str, arguments: object, result: MCPResult) -> McpCall:
    """The log's line for one call: arguments and result redacted, each cut to CALL_LOG_CHARS (McpCall)."""
    sent = canonical_args(arguments)
    kept_args, cut_args = (redact(arguments), False) if len(sent) <= CALL_LOG_CHARS else _cut(sent)
    text, cut_result = _cut(result["content"][0]["text"])
    return McpCall(tool=tool, arguments=kept_args, is_error=result["isError"], result=text, clipped=cut_args or cut_result)


def _cut(text: str) -> tuple[str, bool]:
    if len(text) <= CALL_LOG_CHARS:
        return redact(text), False
    kept = redact(text[:CALL_LOG_CHARS + _REDACT_MARGIN])[:CALL_LOG_CHARS]
    return f"{kept} … [cut: {len(text):,} characters in all]", True


def _label(text: str | None, fallback: str) -> str:
    """A client or model name as a chart may show it: plain characters, no commas or brackets, short."""
    clean = _SAFE.sub("-", (text or "").strip())[:60].strip(" -")
    return clean or fallback


@dataclass
class McpEpisode:
    """One ticket over MCP. It is also the run `grade` and `record_from_run` read (tokens are not visible here)."""

    session: Session
    faults_on: bool
    max_calls: int = 12
    client: ClientInfo = field(default_factory=ClientInfo)
    simulated: bool = False
    messages: list[Message] = field(default_factory=list)
    calls: list[McpCall] = field(default_factory=list)
    answer: str | None = None
    reported_model: str | None = None
    result: Grade | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    stop_reason: str = "finished"

    def __post_init__(self) -> None:
        if not self.messages:
            self.messages.append({"role": "user", "content": self.session.ticket.message})

    # --- what the grader and the results record read (atlas.grade.AtlasCase, types.FinishedRun) --------
    @property
    def ticket(self) -> Ticket:
        return self.session.ticket

    @property
    def world(self) -> World:
        return self.session.world

    @property
    def trace(self) -> Trace:
        return self.session.trace

    @property
    def faults(self) -> bool:
        return self.session.faults

    @property
    def final_text(self) -> str:
        return self.answer or ""

    @property
    def tool_calls(self) -> int:
        return len(self.session.trace.of_kind("call"))

    @property
    def steps(self) -> int:
        """An MCP server sees calls, not model turns: steps counts the calls."""
        return len(self.calls)

    @property
    def model(self) -> str:
        """The stand-in for a simulated episode; otherwise the model as it named itself in finish, and its client."""
        if self.simulated:
            from ...models.standin.model import OFFLINE_MODEL  # only here: a live server never needs the SDK the stand-in runs in

            return OFFLINE_MODEL
        return f"{_label(self.reported_model, 'unknown-model')} via {self.client.name}"

    @property
    def source(self) -> Source:
        """Where the episode came from: simulated, or live with the model and client that worked it."""
        if self.simulated:
            return Source("simulated", self.model)
        return Source("live", self.model, dt.date.today().isoformat())

    # --- the episode -------------------------------------------------------------------------
    def call(self, name: str, arguments: object) -> MCPResult:
        """Run one Atlas tool call through the session's Dispatcher; returns the MCP CallToolResult.

        Past `max_calls` the call is refused and the episode ends on step_limit, as the agent loop's bound ends a
        run: the server cannot end a model's turn, so a loop would otherwise run until the learner stops it.
        """
        if len(self.calls) >= self.max_calls:
            self.stop_reason = "step_limit"
            self.result = grade(self)
            error = tool_error("mcp", ErrorCode.LIMIT_EXCEEDED,
                               f"This episode reached its limit of {self.max_calls} tool calls, so it was closed and graded.",
                               next=stop("Stop calling tools and tell the user the episode ended; they can pick the ticket prompt again."))
            return to_mcp(error, structured=True)
        use_id = f"mcp_{len(self.calls) + 1:03d}"
        use: ToolUseBlock = {"type": "tool_use", "id": use_id, "name": name, "input": arguments if arguments is not None else {}}
        out = self.session.dispatcher.dispatch([use])
        block = out.results[0]
        self.messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [block]}]
        failure = out.failures[0] if out.failures else None
        if failure is not None and self.session.style == "contract":
            result = to_mcp(failure.error, structured=True)
        else:  # a success, or a raw or generic wording: the text as the style wrote it
            result = text_to_mcp(result_text(block["content"]), is_error=bool(block.get("is_error")))
        self.calls.append(logged_call(name, use["input"], result))
        return result

    def hand_in(self, arguments: object) -> tuple[MCPResult, Grade | None]:
        """Handle a `finish` call: check its arguments (in the episode's style), grade the episode, and say the grade
        back in plain words that name nothing the ticket expected (atlas.verdict); the log keeps the full reasons."""
        problem = _finish_problem(arguments)
        if problem is not None:
            return call_result(self.session.style, Failure(FINISH, argument_error("finish", problem), problem.raw)), None
        assert isinstance(arguments, dict)  # _finish_problem accepts only an object
        self.answer, self.reported_model = str(arguments["answer"]), arguments.get("model")
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": self.answer}]})
        self.result = grade(self)
        return text_to_mcp(_finish_reply(self.ticket.id, self.session.style, self.result), is_error=False), self.result

    def condition(self) -> Condition:
        # Over MCP the server cannot end the model's turn, so no loop breaker: the grader labels loops instead.
        return Condition(style=self.session.style, faults=self.faults_on, break_loops=False, profile=None,
                         model=self.model)

    def record(self, *, trial: int, experiment: str = "mcp", why: str | None = None) -> McpRecord:
        """The episode as a results record (results.FIELDS), plus what an MCP log adds: client, calls, answer.

        why: how an episode not handed in ended (its harness_error), e.g. "the server was stopped by SIGTERM".
        """
        seed = self.world.seed
        if self.result is None:
            ended = NotHandedIn(f"{why or 'the episode closed'} before finish was called, so there is no answer to grade")
            record = harness_record(ended, condition=self.condition(), ticket=self.ticket.id, trial=trial, seed=seed,
                                    source=self.source, experiment=experiment)
        else:
            record = record_from_run(self, self.result, condition=self.condition(), ticket=self.ticket.id,
                                     trial=trial, seed=seed, experiment=experiment)
        return {**record, "client": str(self.client), "reported_model": self.reported_model,
                "answer": redact(self.final_text), "reasons": list(self.result.reasons) if self.result else [],
                "calls": list(self.calls)}


def open_episode(ticket: Ticket | str, *, style: str = "contract", faults: bool | Iterable[Fault] = True,
                 seed: int = 0, client: ClientInfo | None = None, simulated: bool = False,
                 customer: str | None = None, max_calls: int = 12) -> McpEpisode:
    """A fresh episode of `ticket`: a new World and Dispatcher, its faults on, off, or a list of your own."""
    if isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 1:
        raise AtlasKitValueError(f"max_calls must be a whole number of at least 1; got {max_calls!r}.")
    session = atlas_session(ticket, style=style, faults=faults, seed=seed, break_loops=False, customer=customer)
    return McpEpisode(session, faults_on=bool(session.faults), max_calls=max_calls,
                      client=client or ClientInfo(), simulated=simulated)


def next_record(episode: McpEpisode, keys: set[str], *, why: str | None = None) -> McpRecord:
    """The episode's record under the first trial number whose key is not in `keys` (those already written)."""
    trial = 0
    while (record := episode.record(trial=trial, why=why))["key"] in keys:
        trial += 1
    return record
