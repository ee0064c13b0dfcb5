"""The agent loop: model call, dispatch, repeat, within step and cost bounds.

One loop body (a generator that yields requests) drives both the sync and the
async client, so they cannot drift apart. It never raises on a model or API
failure: every run ends with a recorded stop reason. Taught in chapters 00 and 06.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generator

from .dispatch import Dispatcher
from .pricing import cost_usd, price_for
from .trace import Trace, redact

__all__ = ["STOP_REASONS", "Bounds", "Run", "Task", "arun_agent", "run_agent"]

STOP_REASONS = ("finished", "loop_broken", "step_limit", "cost_limit", "api_failure")
LOOP_BROKEN_REPLY = (
    "I could not finish this automatically: the same step kept failing in the same way, "
    "so I have passed your request to a colleague who will follow up."
)


@dataclass(frozen=True)
class Bounds:
    """Limits for one run: model calls, dollars, total tokens, and tokens per reply."""

    max_steps: int = 12
    max_cost_usd: float = 0.25
    max_total_tokens: int = 200_000
    max_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.max_steps < 1 or self.max_tokens < 1 or self.max_total_tokens < 1:
            raise ValueError("Bounds: max_steps, max_tokens and max_total_tokens must be at least 1.")
        if self.max_cost_usd <= 0:
            raise ValueError("Bounds: max_cost_usd must be a positive number of US dollars.")


@dataclass
class Task:
    """What one run needs: a system prompt, the customer's message, and a dispatcher."""

    system: str
    message: str
    dispatcher: Dispatcher
    ticket: Any = None
    world: Any = None
    style: str = "contract"
    faults: bool = False


@dataclass
class Run:
    """Everything one episode produced: the transcript, the trace, usage, cost and why it stopped."""

    model: str
    source: str
    messages: list[dict[str, Any]]
    trace: Trace
    final_text: str = ""
    stop_reason: str = "finished"
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    steps: int = 0
    ticket: Any = None
    world: Any = None
    style: str = "contract"
    faults: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def tool_calls(self) -> int:
        return len(self.trace.of_kind("call"))

    @property
    def tool_errors(self) -> list[dict[str, Any]]:
        return self.trace.of_kind("error")

    @property
    def context_tokens(self) -> int:
        """Input tokens summed over every request: what the transcript cost to re-send."""
        return self.input_tokens

    def __repr__(self) -> str:  # short and free of addresses: notebooks store it
        return (f"Run(model={self.model!r}, stop_reason={self.stop_reason!r}, steps={self.steps}, "
                f"tool_calls={self.tool_calls}, tokens={self.input_tokens}+{self.output_tokens})")

    def _repr_html_(self) -> str:
        from .display import run_html

        return run_html(self)

    def __str__(self) -> str:
        from .display import run_text

        return run_text(self)


def as_task(task: Any) -> Task:
    """Accept a Task or anything shaped like an Atlas session."""
    if isinstance(task, Task):
        return task
    ticket = getattr(task, "ticket", None)
    message = getattr(task, "message", None) or getattr(ticket, "message", None)
    if not hasattr(task, "dispatcher") or not hasattr(task, "system") or not message:
        raise TypeError("run_agent needs a Task or an Atlas session (with system, dispatcher and a ticket message).")
    return Task(task.system, message, task.dispatcher, ticket, getattr(task, "world", None),
                getattr(task, "style", "contract"), bool(getattr(task, "faults", False)))


def _block(block: Any) -> dict[str, Any]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    return block.model_dump(mode="json", exclude_none=True)


def _loop(task: Task, model: str, bounds: Bounds, source: str) -> Generator[dict[str, Any], Any, Run]:
    run = Run(model, source, [{"role": "user", "content": task.message}], task.dispatcher.trace,
              ticket=task.ticket, world=task.world, style=task.style, faults=task.faults)
    if not price_for(model)[1]:
        run.notes.append(f"No price is listed for {model}; cost is estimated at the fallback model's rate.")
    tools = task.dispatcher.definitions()
    while True:
        request = {"model": model, "max_tokens": bounds.max_tokens, "system": task.system,
                   "tools": tools, "messages": list(run.messages)}
        answer = yield request
        run.steps += 1
        if not hasattr(answer, "usage") or not hasattr(answer, "content"):  # an exception, or a body the SDK could not parse
            run.stop_reason = "api_failure"
            message = str(answer) if isinstance(answer, BaseException) else "the API answered with something that is not a message"
            run.trace.add("api_failure", error=type(answer).__name__, message=redact(message)[:500])
            return run
        run.input_tokens += answer.usage.input_tokens
        run.output_tokens += answer.usage.output_tokens
        run.cost_usd = cost_usd(model, run.input_tokens, run.output_tokens)
        content = [_block(b) for b in answer.content]
        run.messages.append({"role": "assistant", "content": content})
        uses = [b for b in content if b["type"] == "tool_use"]
        if not uses:
            run.final_text = "\n".join(b["text"] for b in content if b["type"] == "text").strip()
            run.trace.add("finished", model_stop_reason=answer.stop_reason)
            return run
        out = task.dispatcher.dispatch(uses)
        run.messages.append({"role": "user", "content": out.results})
        if out.loop_break is not None:
            run.stop_reason, run.final_text = "loop_broken", LOOP_BROKEN_REPLY
            run.trace.add("escalated", reason="loop_broken", tool=out.loop_break.tool, code=out.loop_break.error)
            return run
        over_tokens = run.input_tokens + run.output_tokens >= bounds.max_total_tokens
        if run.cost_usd >= bounds.max_cost_usd or over_tokens:
            run.stop_reason = "cost_limit"
            run.trace.add("bound", bound="cost", cost_usd=round(run.cost_usd, 6), tokens=run.input_tokens + run.output_tokens)
            return run
        if run.steps >= bounds.max_steps:
            run.stop_reason = "step_limit"
            run.trace.add("bound", bound="steps", steps=run.steps)
            return run


def run_agent(client: Any, task: Any, *, model: str, bounds: Bounds | None = None, source: str = "") -> Run:
    """Run one episode with a sync `anthropic.Anthropic` client."""
    loop = _loop(as_task(task), model, bounds or Bounds(), source)
    request = next(loop)
    while True:
        try:
            answer: Any = client.messages.create(**request)
        except Exception as exc:  # the SDK already retried; record and stop, never crash
            answer = exc
        try:
            request = loop.send(answer)
        except StopIteration as done:
            return done.value


async def arun_agent(client: Any, task: Any, *, model: str, bounds: Bounds | None = None, source: str = "") -> Run:
    """Run one episode with an `anthropic.AsyncAnthropic` client."""
    loop = _loop(as_task(task), model, bounds or Bounds(), source)
    request = next(loop)
    while True:
        try:
            answer: Any = await client.messages.create(**request)
        except Exception as exc:
            answer = exc
        try:
            request = loop.send(answer)
        except StopIteration as done:
            return done.value
