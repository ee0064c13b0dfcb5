"""tau2-bench results (sierra-research/tau2-bench `Results`): one JSON object with `info` (the agent's and the user
simulator's LLMs, the domain), `tasks`, and `simulations`, each with `id`, `task_id`, `trial`, `reward_info.reward`,
`termination_reason` and `messages`; or its "dir" form, a results.json whose simulations are files in `simulations/`
beside it. A tool message carries its own error flag (`error`) and says whose call it answers (`requestor`).

The agent's tool calls and results are the episode's turns. The simulated user's own tools (telecom's device
actions: a user message's `tool_calls`, answered by tool messages with requestor "user") are not the agent's and the
agent never reads their results, so they are left out of the turns and counted in the metadata. Chapter "Errors in
the wild".
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, TypeGuard

from ..model import (Episode, ErrorBasis, Format, ModelText, Outcome, ToolCall, ToolResult, TranscriptError, Turn,
                     UserText)
from .base import CallBook, arguments_of, evidence_of, load_json, reward_of, task_of

_NEEDED = ("task_id", "messages")


def is_results(value: object) -> TypeGuard[dict[str, object]]:
    """Whether `value` has the shape of tau2-bench's Results: an object with `info` and `simulations` (or, in the
    dir form, `simulation_index`)."""
    return isinstance(value, dict) and isinstance(value.get("info"), dict) and (
        "simulations" in value or "simulation_index" in value)


def _agent_model(results: Mapping[str, object]) -> str | None:
    info = results.get("info")
    agent = info.get("agent_info") if isinstance(info, dict) else None
    llm = agent.get("llm") if isinstance(agent, dict) else None
    return llm if isinstance(llm, str) and llm else None


class Tau2BenchReader:
    """Reads a tau2-bench results file. The model is `info.agent_info.llm`; an episode is correct when its reward is
    1 (within 1e-6, tau2-bench's own test of success), not correct for any other reward, and unknown without
    `reward_info`. Metadata keeps the domain, the termination reason, and the user's own tool calls and errors."""

    format: Format = "tau2-bench"

    def read(self, path: Path) -> list[Episode]:
        results = load_json(path)
        if not is_results(results):
            raise TranscriptError(str(path), "", "is not tau2-bench results; expected an object with 'info' and "
                                  "'simulations'.")
        model = _agent_model(results)
        info = results["info"]
        env = info.get("environment_info") if isinstance(info, dict) else None
        domain = env.get("domain_name") if isinstance(env, dict) else None
        return [self._episode(at, where, i, sim, path, model, domain if isinstance(domain, str) else None)
                for i, (at, where, sim) in enumerate(_simulations(path, results))]

    def _episode(self, at: Path, where: str, i: int, sim: object, path: Path, model: str | None,
                 domain: str | None) -> Episode:
        if not isinstance(sim, dict):
            raise TranscriptError(str(at), where, "is not an object; expected a simulation with task_id and messages.")
        missing = [k for k in _NEEDED if k not in sim]
        if missing or not isinstance(sim["messages"], list):
            raise TranscriptError(str(at), where, f"has no {', '.join(missing) or 'messages list'}; expected a "
                                  "simulation with task_id and messages (a list).")
        trial = sim.get("trial")
        turns, system, user_calls, user_errors = _turns(sim["messages"], at, where)
        sim_id = sim.get("id")
        task = task_of(sim["task_id"], at, where)
        return Episode(id=sim_id if isinstance(sim_id, str) and sim_id else f"record-{i}", format=self.format,
                       file=str(path), record=i, turns=turns, outcome=_outcome(sim, at, where),
                       evidence=evidence_of(model), task_id=task,
                       trial=trial if isinstance(trial, int) and not isinstance(trial, bool) else None, model=model,
                       system=system, metadata={"domain": domain, "termination": str(sim.get("termination_reason")),
                                                "user_tool_calls": user_calls, "user_tool_errors": user_errors})


def _simulations(path: Path, results: dict[str, object]) -> list[tuple[Path, str, object]]:
    """(file, place, simulation) for each simulation: in the file, or (dir form) in simulations/*.json beside it."""
    inline = results.get("simulations")
    if isinstance(inline, list) and inline:
        return [(path, f"simulation {i}", sim) for i, sim in enumerate(inline)]
    folder = path.parent / "simulations"
    if folder.is_dir() and results.get("simulation_index") is not None:
        return [(f, "", load_json(f)) for f in sorted(folder.glob("*.json"))]
    raise TranscriptError(str(path), "", "holds no simulations; expected tau2-bench results with a non-empty "
                          "'simulations' list (or, in the dir form, a simulations/ folder beside it).")


def _outcome(sim: Mapping[str, object], path: Path, where: str) -> Outcome:
    info = sim.get("reward_info")
    if info is None:
        return Outcome()
    if not isinstance(info, dict) or "reward" not in info:
        raise TranscriptError(str(path), where, "'reward_info' has no 'reward'; expected an object with the reward.")
    reward = reward_of(info["reward"], path, where, "a finite number (tau2-bench's reward)")
    return Outcome(math.isclose(reward, 1.0, abs_tol=1e-6), reward)


def _turns(messages: list[object], path: Path, where: str) -> tuple[tuple[Turn, ...], str, int, int]:
    """The agent's turns, the system text, and the user's own tool calls and tool errors (counted, not turns)."""
    turns: list[Turn] = []
    system: list[str] = []
    book = CallBook(path)
    user_calls: set[str] = set()
    user_errors = 0
    for i, m in enumerate(_flat(messages)):
        at = f"{where}, message {i}" if where else f"message {i}"
        if not isinstance(m, dict):
            raise TranscriptError(str(path), at, "is not an object; expected a message with 'role'.")
        role, content = m.get("role"), m.get("content")
        text = content if isinstance(content, str) else ""
        calls = m.get("tool_calls") or []
        if not isinstance(calls, list):
            raise TranscriptError(str(path), at, "'tool_calls' is not a list; expected a list of calls or null.")
        if role == "system":
            system.append(text)
        elif role == "user":
            turns += [UserText(text, i)] if text.strip() else []
            user_calls |= {_call_id(c, i, k) for k, c in enumerate(calls)}
        elif role == "assistant":
            turns += [ModelText(text, i)] if text.strip() else []
            turns += [_call(c, i, k, book, path, at) for k, c in enumerate(calls)]
        elif role == "tool":
            call_id, flag = m.get("id"), m.get("error")
            if m.get("requestor") == "user" or call_id in user_calls:
                user_errors += flag is True
                continue
            answered = book.answered(call_id, at) if isinstance(call_id, str) and call_id else book.oldest(at)
            basis: ErrorBasis = "flag" if isinstance(flag, bool) else "absent"
            turns.append(ToolResult(answered, flag is True, basis, text, i))
        else:
            raise TranscriptError(str(path), at, f"has role {role!r}; expected system, user, assistant or tool "
                                  "(tau2-bench messages).")
    return tuple(turns), "\n\n".join(s for s in system if s), len(user_calls), user_errors


def _flat(messages: list[object]) -> list[object]:
    """The messages with each MultiToolMessage (role tool, `tool_messages`) opened into its tool messages."""
    flat: list[object] = []
    for m in messages:
        inner = m.get("tool_messages") if isinstance(m, dict) else None
        flat += inner if isinstance(inner, list) else [m]
    return flat


def _call_id(call: object, i: int, k: int) -> str:
    given = call.get("id") if isinstance(call, dict) else None
    return given if isinstance(given, str) and given else f"call@{i}.{k}"


def _call(call: object, i: int, k: int, book: CallBook, path: Path, at: str) -> ToolCall:
    name = call.get("name") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(name, str) or not name:
        raise TranscriptError(str(path), f"{at}, tool call {k}", "has no 'name'; expected {'id': ..., 'name': ..., "
                              "'arguments': {...}}.")
    call_id = _call_id(call, i, k)
    book.made(call_id)
    return ToolCall(call_id, name, arguments_of(call.get("arguments") or {}), i)
