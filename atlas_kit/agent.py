"""The agent loop: model call, dispatch, repeat, within step and cost bounds.

One loop body (a generator that yields requests) drives both the sync and the async client, so they
cannot drift apart. It never raises on a model or API failure: every reply is checked first
(replies.py), every stop reason the API defines has an outcome, and a tool runs only when the reply
stopped on `tool_use`. Every run ends with a recorded stop reason. Taught in chapters 00 and 06.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Generator, Protocol

from .dispatch.dispatcher import Dispatches
from .dispatch.trace import Trace
from .models.pricing import run_cost_usd, run_price_note
from .models.replies import APIFailure, Reply, read_reply
from .display import run_html, run_text
from .types.records import Source
from .types.sets import STOP_REASONS, StopReason
from .types.clients import AsyncMessagesClient, MessagesClient, wire
from .types.api import Block, Message, MessagesRequest, ToolDefinition
from .types.events import ErrorEvent
from .types.exceptions import AtlasKitTypeError, AtlasKitValueError

# A reply that stopped for one of these ends the run without a finished answer; nothing in it is executed.
_ENDS: dict[str, StopReason] = {"max_tokens": "truncated", "refusal": "refused", "stop_sequence": "stop_sequence",
                                "model_context_window_exceeded": "context_exceeded"}
LOOP_BROKEN_REPLY = (
    "I could not finish this automatically: the same step kept failing in the same way, "
    "so I have passed your request to a colleague who will follow up."
)


@dataclass(frozen=True)
class Bounds:
    """Limits for one run: model calls, dollars, total tokens, and tokens per reply.

    retry_max_tokens: a reply cut off at max_tokens is asked for once more with this many (within the
    other bounds); equal to max_tokens, a cut-off reply ends the run as `truncated` at once.
    """

    max_steps: int = 12
    max_cost_usd: float = 0.25
    max_total_tokens: int = 200_000
    max_tokens: int = 1024
    retry_max_tokens: int = 4096

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_total_tokens", "max_tokens", "retry_max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise AtlasKitValueError(f"Bounds: {name} must be a whole number of at least 1; got {value!r}.")
        cost = self.max_cost_usd
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) or cost <= 0:
            raise AtlasKitValueError(f"Bounds: max_cost_usd must be a positive, finite number of US dollars; got {cost!r}.")
        if self.retry_max_tokens < self.max_tokens:
            raise AtlasKitValueError(f"Bounds: retry_max_tokens ({self.retry_max_tokens}) must be at least max_tokens "
                             f"({self.max_tokens}); make them equal to turn the retry off.")


@dataclass
class Task:
    """What one run needs: a system prompt, the user's message and a dispatcher. `about` is whatever the caller wants
    carried to the Run untouched (an Atlas session, which its grader reads); the loop never looks at it."""

    system: str
    message: str
    dispatcher: Dispatches  # a Dispatcher, or anything with its definitions(), dispatch() and trace
    about: object = None


class Sessionlike(Protocol):
    """Anything with a system prompt, a message and a dispatcher (an Atlas session is one): `as_task` makes a Task
    of it, carrying the object itself as the Task's `about`."""

    @property
    def system(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def dispatcher(self) -> Dispatches: ...


@dataclass
class Run:
    """Everything one episode produced: the transcript, the trace, usage, cost and why it stopped."""

    model: str
    source: Source | None  # where its answers came from; None for a run nobody labelled
    messages: list[Message]
    trace: Trace
    final_text: str = ""
    stop_reason: StopReason = "finished"
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    steps: int = 0
    about: object = None  # the Task's `about`, carried untouched (an Atlas session, for its grader)
    notes: list[str] = field(default_factory=list)
    api_failure: APIFailure | None = None  # why, when stop_reason is api_failure
    api_stop_reason: str | None = None  # the API's stop_reason on the last reply

    @property
    def tool_calls(self) -> int:
        """How many tool calls the dispatcher received."""
        return len(self.trace.of_kind("call"))

    @property
    def tool_errors(self) -> list[ErrorEvent]:
        """The errors that reached the model, as the trace recorded them."""
        return self.trace.of_kind("error")

    @property
    def context_tokens(self) -> int:
        """Input tokens summed over every request: what the transcript cost to re-send."""
        return self.input_tokens

    def __repr__(self) -> str:  # short and free of addresses: notebooks store it
        return (f"Run(model={self.model!r}, stop_reason={self.stop_reason!r}, steps={self.steps}, "
                f"tool_calls={self.tool_calls}, tokens={self.input_tokens}+{self.output_tokens})")

    def _repr_html_(self) -> str:  # how a run prints: display.py
        return run_html(self)

    def __str__(self) -> str:
        return run_text(self)


def as_task(task: Task | Sessionlike) -> Task:
    """Accept a Task, or anything with a system prompt, a message and a dispatcher (carried as the Task's `about`)."""
    if isinstance(task, Task):
        return task
    message, dispatcher = getattr(task, "message", None), getattr(task, "dispatcher", None)
    if not callable(getattr(dispatcher, "dispatch", None)) or not callable(getattr(dispatcher, "definitions", None)) \
            or not isinstance(getattr(task, "system", None), str) or not isinstance(message, str) or not message:
        raise AtlasKitTypeError("run_agent needs a Task, or an object with a system prompt, a message and a dispatcher "
                                "(an Atlas session is one).")
    return Task(task.system, message, task.dispatcher, about=task)


def _over(run: Run, bounds: Bounds) -> str | None:
    """The bound this run has reached, if any: "cost" (dollars or total tokens) or "steps"."""
    if run.cost_usd >= bounds.max_cost_usd or run.input_tokens + run.output_tokens >= bounds.max_total_tokens:
        return "cost"
    return "steps" if run.steps >= bounds.max_steps else None


AgentSteps = Generator[MessagesRequest, object, Run]
"""The loop as steps: it yields each request; send it what the call gave back (a message, or the exception the
call raised); its return value is the finished Run."""


def agent_steps(task: Task | Sessionlike, *, model: str, bounds: Bounds | None = None,
                source: Source | None = None) -> AgentSteps:
    """The agent loop without a client: run_agent, arun_agent and the Message Batches path all drive this.

    `steps = agent_steps(task, model=m)`, then `request = next(steps)` and `request = steps.send(answer)` until
    StopIteration, whose `.value` is the Run. Nothing in it waits, so any client (sync, async, a batch) fits.
    """
    task, bounds, run = _start(task, model=model, bounds=bounds, source=source)
    tools: list[ToolDefinition] = task.dispatcher.definitions()
    max_tokens, seen_ids = bounds.max_tokens, set[str]()
    while True:
        request: MessagesRequest = {"model": model, "max_tokens": max_tokens, "system": task.system,
                                    "tools": tools, "messages": list(run.messages)}
        answer = yield request
        run.steps += 1
        reply = read_reply(answer, seen_ids=seen_ids)
        if isinstance(reply, APIFailure):  # an exception, or a body that is not a message: never the model's doing
            run.stop_reason, run.api_failure = "api_failure", reply
            run.trace.add("api_failure", error=reply.error, message=reply.message, reason=reply.reason,
                          status=reply.status)
            return run
        run.api_stop_reason = reply.stop_reason
        run.input_tokens += reply.input_tokens
        run.output_tokens += reply.output_tokens
        run.cost_usd = run_cost_usd(model, source, run.input_tokens, run.output_tokens)
        if reply.stop_reason == "max_tokens" and max_tokens < bounds.retry_max_tokens and _over(run, bounds) is None:
            # A cut-off reply may hold a half-written tool call: drop it, and ask once more with room to finish.
            run.trace.add("max_tokens_retry", max_tokens=max_tokens, retry_max_tokens=bounds.retry_max_tokens,
                          unexecuted=[u["name"] for u in reply.tool_uses])
            max_tokens = bounds.retry_max_tokens
            continue
        # Blocks the loop does not act on (thinking, server tools) go back to the API as they came.
        run.messages.append({"role": "assistant", "content": _sendable(reply.content)})
        seen_ids.update(u["id"] for u in reply.tool_uses)
        if _acted(run, reply, task) or _bounded(run, bounds, reply.stop_reason):
            return run


def _sendable(content: list[Block]) -> list[Block]:
    """The reply's blocks as the next request may carry them. A tool_use `input` must be an object (the Messages
    API's ToolUseBlockParam: `input: Dict[str, object]`), so one that is not (a string, as some local servers and
    some models write) goes back as {}: sent as it came, it makes the API refuse every later request with a 400.
    The call as the model wrote it stays in the trace's `call` event, and its tool_result says what was wrong."""
    sendable: list[Block] = []
    for block in content:
        if block["type"] == "tool_use" and not isinstance(block["input"], dict):
            block = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        sendable.append(block)
    return sendable


def _start(task: Task | Sessionlike, *, model: str, bounds: Bounds | None,
           source: Source | None) -> tuple[Task, Bounds, Run]:
    """The task, the bounds in force and a fresh Run holding the customer's message; a bad source is refused."""
    task = as_task(task)
    if source is not None and not isinstance(source, Source):
        raise AtlasKitTypeError(f"source must be a Source (choice.source, or models.STANDIN_SOURCE for the stand-in); got "
                        f"{type(source).__name__} {str(source)[:60]!r}.")
    run = Run(model, source, [{"role": "user", "content": task.message}],
              task.dispatcher.trace, about=task.about)
    note = run_price_note(model, source)
    if note:
        run.notes.append(note)
    return task, bounds or Bounds(), run


def _acted(run: Run, reply: Reply, task: Task) -> bool:
    """Act on the reply's stop reason: finish, run its tool calls, or stop. True when the run has ended."""
    stop = reply.stop_reason
    if stop == "end_turn":
        run.final_text = reply.text
        run.trace.add("finished", model_stop_reason=stop)
        return True
    if stop == "tool_use":
        out = task.dispatcher.dispatch(reply.tool_uses)
        run.messages.append({"role": "user", "content": [*out.results]})
        if out.loop_break is not None:
            run.stop_reason, run.final_text = "loop_broken", LOOP_BROKEN_REPLY
            run.trace.add("escalated", reason="loop_broken", tool=out.loop_break.tool, code=out.loop_break.error.value)
            return True
    elif stop != "pause_turn":  # pause_turn: the API paused a long turn; sending it back resumes it
        run.stop_reason = _ENDS.get(stop, "unknown_stop")
        run.final_text = reply.text
        run.trace.add("stopped", reason=run.stop_reason, model_stop_reason=stop[:100],
                      unexecuted=[u["name"] for u in reply.tool_uses])
        return True
    return False


def _bounded(run: Run, bounds: Bounds, stop: str) -> bool:
    """Stop a run that has reached its cost or step bound (a paused turn at the step bound ends as paused)."""
    bound = _over(run, bounds)
    if bound == "cost":
        run.stop_reason = "cost_limit"
        run.trace.add("bound", bound="cost", cost_usd=round(run.cost_usd, 6), tokens=run.input_tokens + run.output_tokens)
        return True
    if bound == "steps":
        run.stop_reason = "paused" if stop == "pause_turn" else "step_limit"
        run.trace.add("bound", bound="steps", steps=run.steps)
        return True
    return False


def run_agent(client: MessagesClient, task: Task | Sessionlike, *, model: str, bounds: Bounds | None = None,
              source: Source | None = None) -> Run:
    """Run one episode with a sync client (`choice.client`); `source` (`choice.source`) labels it."""
    steps = agent_steps(task, model=model, bounds=bounds, source=source)
    request = next(steps)
    while True:
        answer: object
        try:
            answer = client.messages.create(**wire(request))
        except Exception as exc:  # the client already retried; record and stop, never crash
            answer = exc
        try:
            request = steps.send(answer)
        except StopIteration as done:
            finished: Run = done.value
            return finished


async def arun_agent(client: AsyncMessagesClient, task: Task | Sessionlike, *, model: str,
                     bounds: Bounds | None = None, source: Source | None = None) -> Run:
    """Run one episode with an async client (`choice.async_client`)."""
    steps = agent_steps(task, model=model, bounds=bounds, source=source)
    request = next(steps)
    while True:
        answer: object
        try:
            answer = await client.messages.create(**wire(request))
        except Exception as exc:
            answer = exc
        try:
            request = steps.send(answer)
        except StopIteration as done:
            finished: Run = done.value
            return finished
