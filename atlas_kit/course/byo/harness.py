"""Your dispatcher in the real loop: plain tool functions, an adapter, and a sweep beside the library's.

`tool_functions` turns Tools into `tool(args, key=None)` callables; `YourDispatcher` gives a
`dispatch(content, tools, seen)` function the Dispatcher's face, so run_agent, play and the grader run
it unchanged; `compare` runs several dispatchers, and the library's, on the same tickets and seeds. Chapter 13.
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import warnings
from collections import Counter
from typing import Callable, Iterable, Mapping, Sequence, TypeGuard

from ...agent import Bounds, run_agent
from ...contract.arguments import check_arguments
from ...atlas.tickets import TICKETS, ticket
from ...atlas.faults import Fault
from ...atlas.session import Session, atlas_session
from ...dispatch.tool import CallContext, Tool
from ...dispatch.dispatcher import DispatchResult
from ...dispatch.breaker import LoopBreak, canonical_args
from ...dispatch.transient import Transient
from ...contract.errors import ErrorCode, ToolFailure, retry_changed
from ...experiments.episodes import Episode, episode_record, harness_failure
from ...experiments.guard import Guard, max_cost_usd
from ...models.choose import ModelChoice
from ...models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, offline_client
from ...models.pricing import Estimate
from ...experiments.results import Condition
from ...types.sets import JSONObject
from ...types.clients import MessagesClient
from ...types.records import Record, Source
from ...types.api import ToolDefinition, ToolResultBlock
from ...types.walk import content_blocks
from ...dispatch.trace import Trace
from .probe import DispatchFunction, ToolFunction, answerable, repeated_of, results_of
from ...types.exceptions import AtlasKitTypeError, AtlasKitValueError



def tool_functions(tools: Iterable[Tool], *, trace: Trace | None = None) -> dict[str, ToolFunction]:
    """Each Tool as `tool(args, key=None)`: arguments checked against its schema, then its handler run.

    A bad argument raises ToolFailure(invalid_argument) worded as the library words it; the handler's own
    ToolFailure, Transient or crash passes through for your dispatcher to answer. `key` reaches the
    handler as the idempotency key. With `trace`, every attempt is recorded ("attempt" events).
    """
    return {tool.name: _function(tool, trace) for tool in tools}


def _function(tool: Tool, trace: Trace | None) -> ToolFunction:
    attempts: Counter[str] = Counter()

    def call(args: object, key: object = None) -> object:
        problem = check_arguments(tool.input_schema, args)
        if problem is not None:
            raise ToolFailure("invalid_argument", problem.message, raw=problem.raw,
                              next=retry_changed(problem.argument or "input", "Fix that argument and call again."))
        assert isinstance(args, dict)  # check_arguments refuses anything that is not an object
        key = None if key is None else str(key)
        attempts[str(key)] += 1
        outcome = "crashed"
        try:
            value = tool.handler(args, CallContext(key or "", attempts[str(key)], key))
            outcome = "ok"
            return value
        except ToolFailure:
            outcome = "refused"
            raise
        except (Transient, TimeoutError):
            outcome = "transient"
            raise
        finally:
            if trace is not None:
                trace.add("attempt", tool=tool.name, key=key, attempt=attempts[str(key)], outcome=outcome)

    call.__name__ = tool.name
    return call


class YourDispatcher:
    """A `dispatch(content, tools, seen)` function with a Dispatcher's face: `definitions()`, `dispatch(content)`,
    `trace`. It keeps `seen` for the run and records what the grader reads (calls, results, errors, loop breaks)
    from what your function returned. A malformed return is refused, as the API would refuse it."""

    def __init__(self, dispatch: DispatchFunction, tools: Iterable[Tool], *, trace: Trace | None = None) -> None:
        if not callable(dispatch):
            raise AtlasKitTypeError("YourDispatcher needs your dispatch function itself, dispatch(content, tools, seen).")
        self.fn = dispatch
        self.tools = {t.name: t for t in tools}
        self.trace = trace if trace is not None else Trace()
        self.functions = tool_functions(self.tools.values(), trace=self.trace)
        self.seen: set[object] = set()

    def definitions(self) -> list[ToolDefinition]:
        """Every tool's definition, for the request's `tools`."""
        return [t.definition() for t in self.tools.values()]

    def dispatch(self, content: Iterable[object]) -> DispatchResult:
        """Hand the blocks to your dispatch function, trace what it did, and report a repeat it names."""
        blocks: list[JSONObject] = copy.deepcopy([dict(b) for b in content_blocks(content)])
        uses = answerable(blocks)  # a repeated id is answered once, for its first block (chapter 10)
        for b in blocks:
            if b.get("type") == "tool_use" and not any(b is u for u in uses):
                self.trace.add("unanswerable_block", tool_use_id=repr(b.get("id"))[:80])
        for b in uses:
            self.trace.add("call", tool_use_id=b["id"], tool=b["name"] if b["name"] in self.tools else "<unknown>",
                           args=canonical_args(b.get("input"))[:2000])
        returned = self.fn(blocks, self.functions, self.seen)
        results = results_of(returned)
        issued = [b["id"] for b in uses]
        if results is None or not _answers(results, issued):
            raise AtlasKitValueError(f"your dispatch returned {str(returned)[:120]!r} for tool_use ids {issued}; the API needs "
                             "one tool_result per id, in order. check('13.1', dispatch) shows the smallest such input.")
        for b, r in zip(uses, results):
            self._observe(b, r)
        repeated = repeated_of(returned)
        if repeated is None or repeated is False:
            return DispatchResult(results=results)
        errors = self.trace.of_kind("error")
        last = (errors[-1]["tool"], "", errors[-1]["code"]) if errors else ("<unknown>", "", "none")
        parts = repeated if isinstance(repeated, tuple) and len(repeated) == 3 else last
        code = next((c for c in ErrorCode if c.value == str(parts[2])), None)
        if code is None:  # a repeat of no contract error is no loop the breaker counts
            return DispatchResult(results=results)
        brk = LoopBreak(str(parts[0]), hashlib.sha256(str(parts[1]).encode()).hexdigest()[:16], code, 2)
        self.trace.add("loop_detected", tool=brk.tool, args_key=brk.args_key, code=code.value, count=2, acted=True)
        return DispatchResult(results=results, loop_break=brk)

    def _observe(self, block: JSONObject, result: ToolResultBlock) -> None:
        name = block["name"] if block["name"] in self.tools else "<unknown>"
        if not result.get("is_error"):
            self.trace.add("result", tool_use_id=block["id"], tool=name)
            return
        body = _body(result.get("content"))
        nxt = body["next"] if isinstance(body.get("next"), dict) else {}
        self.trace.add("error", tool_use_id=block["id"], tool=name, code=str(body.get("error", "none")),
                       branch=nxt.get("branch"), detail=str(result.get("content"))[:500])


def _answers(results: list[object], issued: list[str]) -> TypeGuard[list[ToolResultBlock]]:
    """Whether `results` are tool_result blocks (a dict of type tool_result, with text or a list for content) answering
    the `issued` ids one to one, in order: what the API accepts."""
    return ([r.get("tool_use_id") if isinstance(r, dict) else None for r in results] == issued
            and all(isinstance(r, dict) and r.get("type") == "tool_result" and isinstance(r.get("content"), (str, list))
                    for r in results))


def _body(content: object) -> JSONObject:
    try:
        body = json.loads(content) if isinstance(content, (str, bytes, bytearray)) else None
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def your_session(dispatch: DispatchFunction, ticket: str, *, faults: bool | Iterable[Fault] = True,
                 seed: int = 0) -> Session:
    """An Atlas session whose tool calls go through your dispatch function instead of the library's Dispatcher.

    faults: True for the ticket's own, False for none, or your own list, as for atlas_session.
    """
    session = atlas_session(ticket, faults=faults, seed=seed)
    mine = YourDispatcher(dispatch, session.dispatcher.tools.values(), trace=session.dispatcher.trace)
    return dataclasses.replace(session, dispatcher=mine)


def compare(dispatchers: Mapping[str, DispatchFunction | None], *, tickets: Sequence[str] | None = None,
            faults: Sequence[bool] = (True, False), trials: int = 1, first_seed: int = 0,
            choice: ModelChoice | None = None, bounds: Bounds | None = None,
            confirm: Callable[[Estimate], bool] | None = None) -> list[ByoRecord]:
    """Run each dispatcher (None: the library's Dispatcher) on the same tickets × faults × trials, one at a time.

    Trial n runs with seed first_seed + n, the same for every dispatcher. One record per episode: the fields of
    results.FIELDS, with the dispatcher's name in `experiment`, plus `handler_calls` (tool handler invocations,
    harness retries included). `choice`: a live or replayed ModelChoice; None or offline uses the stand-in. A live
    sweep prints its estimate first, is refused above the max_cost_usd in force (or when `confirm` says no), and
    stops cleanly at that budget or at a run of API failures, as every live sweep does (guard.py).
    """
    tickets = list(TICKETS) if tickets is None else list(tickets)
    unknown = [t for t in tickets if not _is_ticket(t)]
    if unknown or not tickets:
        raise AtlasKitValueError(f"tickets: {unknown or tickets!r} are not Atlas tickets; pass ids such as 'T01' "
                         "(atlas_kit.atlas.TICKETS lists them).")
    if not dispatchers or any(fn is not None and not callable(fn) for fn in dispatchers.values()):
        raise AtlasKitValueError("dispatchers maps a name to a dispatch function, or to None for the library's Dispatcher.")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise AtlasKitValueError(f"trials must be a whole number of at least 1; got {trials!r}.")
    live = choice if choice is not None and choice.mode != "offline" else None
    model = live.model if live is not None else OFFLINE_MODEL
    origin = live.source if live is not None else STANDIN_SOURCE
    plan = [(name, fn, Episode(Condition("contract", bool(on), True, "default" if live is None else None, model), t, n,
                               first_seed))
            for name, fn in dispatchers.items() for on in faults for t in tickets for n in range(trials)]
    b = bounds or Bounds()
    guard, _ = Guard.before(origin, [e for _, _, e in plan], max_cost_usd=max_cost_usd(), budget_usd=None,
                            confirm=confirm, max_cost_per_episode=b.max_cost_usd, max_tokens=b.retry_max_tokens)
    clients: dict[int, MessagesClient] = {}
    records: list[ByoRecord] = []
    for name, fn, episode in plan:
        if not guard.admit():
            warnings.warn(guard.message, stacklevel=2)
            break
        client = clients.setdefault(episode.seed, offline_client(seed=episode.seed)) if live is None else live.client
        records.append(_episode(name, fn, client, episode, origin, b))
        guard.finish(records[-1])
    return records


class ByoRecord(Record):
    """A results record (types.Record) of one episode under your dispatcher, with its tool handler invocations."""

    handler_calls: int


def _is_ticket(ticket_id: object) -> bool:
    if not isinstance(ticket_id, str):
        return False
    try:
        ticket(ticket_id)
    except (KeyError, TypeError):
        return False
    return True


def _episode(name: str, fn: DispatchFunction | None, client: MessagesClient, episode: Episode, source: Source,
             bounds: Bounds) -> ByoRecord:
    condition, ticket_id, seed = episode.condition, episode.ticket, episode.seed
    calls: Counter[str] = Counter()
    try:
        session = atlas_session(ticket_id, faults=condition.faults, seed=seed)
        tools = session.dispatcher.tools
        for tool_name, tool in list(tools.items()):
            tools[tool_name] = _counted(tool, calls)
        if fn is not None:
            session = dataclasses.replace(session, dispatcher=YourDispatcher(fn, tools.values(),
                                                                               trace=session.dispatcher.trace))
        run = run_agent(client, session, model=condition.model, bounds=bounds, source=source)
        record = episode_record(episode, run, experiment=name)
    except Exception as exc:  # your dispatcher may be wrong; the sweep goes on and the record says how
        record = harness_failure(episode, exc, source=source, experiment=name)
    return {**record, "handler_calls": sum(calls.values())}


def _counted(tool: Tool, calls: Counter[str]) -> Tool:
    counted = copy.copy(tool)  # not dataclasses.replace: the schema was checked when the tool was built

    def handler(args: JSONObject, ctx: CallContext) -> object:
        calls[tool.name] += 1
        return tool.handler(args, ctx)

    counted.handler = handler
    return counted
