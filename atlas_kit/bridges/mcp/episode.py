"""One Atlas episode served over MCP: a ticket opened by a prompt, every `tools/call` through the
Dispatcher, the answer handed in with `finish`, graded, and written as a results record.

No MCP wire here (that is mcp_server.py) and no model (mcp_host.py drives the stand-in). Chapter 15.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, TypedDict

from ...contract.arguments import check_arguments
from ...atlas import Fault, Grade, Session, Ticket, World, atlas_session, grade
from ...contract.errors import ErrorCode, retry_changed, stop, tool_error
from ...experiments.results import Condition, harness_record, record_from_run
from ...dispatch.trace import Trace
from ...contract.redaction import redact
from ...types import JSONObject, Message, Record, Source, ToolDefinition, ToolUseBlock, result_text
from ...contract.vocab import MCPResult, text_to_mcp, to_mcp

__all__ = ["FINISH", "ClientInfo", "McpCall", "McpEpisode", "McpRecord", "NotHandedIn", "finish_definition", "next_record", "no_episode",
           "open_episode"]

FINISH = "finish"
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
    """One tools/call as the log keeps it: what was sent and the text the client got back."""

    tool: str
    arguments: Any  # the client's arguments, as sent (redacted): not always an object
    is_error: bool
    result: str


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


def no_episode() -> MCPResult:
    """The result for a call when no ticket is open: the harness's own error, always in the contract's words."""
    error = tool_error("mcp", ErrorCode.NOT_PERMITTED,
                       "No Atlas ticket is open, so there is nothing to work on or hand in.",
                       next=stop("Tell the user to pick one of the Atlas ticket prompts, T01 to T27, to start an episode."))
    return to_mcp(error, structured=True)


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

    # --- what the grader and the results record read (atlas.GradableRun, types.FinishedRun) --------
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
        self.calls.append(McpCall(tool=name, arguments=redact(use["input"]), is_error=result["isError"],
                                  result=redact(result["content"][0]["text"])))
        return result

    def hand_in(self, arguments: object) -> tuple[MCPResult, Grade | None]:
        """Handle a `finish` call: check its arguments, grade the episode, and say the grade back."""
        problem = check_arguments(_FINISH_SCHEMA, arguments)
        if problem is not None:
            error = tool_error("finish", ErrorCode.INVALID_ARGUMENT, problem.message,
                               next=retry_changed(problem.argument or "answer", "Fix that argument and call finish again."))
            return to_mcp(error, structured=True), None
        assert isinstance(arguments, dict)  # check_arguments accepts only an object
        self.answer, self.reported_model = str(arguments["answer"]), arguments.get("model")
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": self.answer}]})
        self.result = grade(self)
        verdict = "correct" if self.result.correct else "not correct"
        why = "; ".join(self.result.reasons) or "the end state and the answer match the ticket"
        labels = ", ".join(self.result.labels) or "none"
        text = f"Handed in. Ticket {self.ticket.id}, {self.session.style} style: {verdict}. Why: {why}. Labels: {labels}."
        return text_to_mcp(text, is_error=False), self.result

    def condition(self) -> Condition:
        # Over MCP the server cannot end the model's turn, so no loop breaker: the grader labels loops instead.
        return Condition(style=self.session.style, faults=self.faults_on, break_loops=False, profile=None,
                         model=self.model)

    def record(self, *, trial: int, experiment: str = "mcp") -> McpRecord:
        """The episode as a results record (results.FIELDS), plus what an MCP log adds: client, calls, answer."""
        seed = self.world.seed
        if self.result is None:
            why = NotHandedIn("the episode closed before finish was called, so there is no answer to grade")
            record = harness_record(why, condition=self.condition(), ticket=self.ticket.id, trial=trial, seed=seed,
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
        raise ValueError(f"max_calls must be a whole number of at least 1; got {max_calls!r}.")
    session = atlas_session(ticket, style=style, faults=faults, seed=seed, break_loops=False, customer=customer)
    return McpEpisode(session, faults_on=bool(session.faults), max_calls=max_calls,
                      client=client or ClientInfo(), simulated=simulated)


def next_record(episode: McpEpisode, keys: set[str]) -> McpRecord:
    """The episode's record under the first trial number whose key is not in `keys` (those already written)."""
    trial = 0
    while (record := episode.record(trial=trial))["key"] in keys:
        trial += 1
    return record
