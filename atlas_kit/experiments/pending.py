"""Paid calls of episodes a sweep started and did not finish, kept beside its results until a resume uses them.

An interrupted live sweep keeps every reply that came back in RESULTS.jsonl.pending (one line per unfinished
episode, redacted like a cassette), so the resume answers those calls from the file instead of paying again, and
`spent_in` counts them against the budget meanwhile. Calls cut off before their reply came are written to the
results themselves, as the spend of an episode that ended at the API, and the resume sends them again. Chapter 11.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Collection, Mapping, Sequence

from ..contract.redaction import redact
from ..models.pricing import run_cost_usd
from ..models.resume import CallKeeper, CutCall, KeptCall
from .episodes import Episode
# A record with no run behind it is built as harness_record builds one.
from ..types.results import API_FAILURE
from .results import Condition, ResultsWriter, _record, _source_fields
from ..types.records import Record, Source
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

INTERRUPTED = "interrupted"
"""The `api_failure` of the results line that carries what an interrupted episode paid for and kept no reply of."""


def pending_path(out: str | os.PathLike[str] | None) -> Path | None:
    """Where a sweep keeps the paid calls of its unfinished episodes: beside the results (RESULTS.jsonl.pending)."""
    return None if out is None else Path(os.fspath(out) + ".pending")


def read_pending(out: str | os.PathLike[str] | None) -> dict[str, list[KeptCall]]:
    """The kept calls of each unfinished episode; {} when there are none. A line that is not one is refused,
    naming the file: it holds paid replies, so it is never dropped silently."""
    path = pending_path(out)
    if path is None or not path.exists():
        return {}
    found: dict[str, list[KeptCall]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            item = json.loads(line)
            found[str(item["key"])] = [_kept(call) for call in item["calls"]]
        except (ValueError, KeyError, TypeError) as err:
            raise AtlasKitValueError(f"{path}: line {n} is not a kept episode ({err}); it holds paid replies a resume uses "
                             "instead of paying again: move the file away to run those episodes afresh.") from None
    return found


def _kept(call: object) -> KeptCall:
    if not isinstance(call, dict) or not isinstance(call.get("response"), dict):
        raise AtlasKitTypeError("a call without a response")
    cost = float(call["cost_usd"])
    if not math.isfinite(cost) or cost < 0:
        raise AtlasKitValueError(f"cost_usd {cost!r}")
    return KeptCall(fingerprint=str(call["fingerprint"]), response=call["response"],
                    input_tokens=int(call["input_tokens"]), output_tokens=int(call["output_tokens"]), cost_usd=cost)


def pending_usd(out: str | os.PathLike[str] | None) -> float:
    """What the kept calls of the unfinished episodes cost: paid, and in no record yet."""
    return sum(call["cost_usd"] for calls in read_pending(out).values() for call in calls)


def write_pending(out: str | os.PathLike[str] | None, kept: Mapping[str, Sequence[KeptCall]]) -> None:
    """Replace the file with these episodes' kept calls, redacted (written whole, then renamed); no episode, no
    file."""
    path = pending_path(out)
    if path is None:
        return
    lines = [json.dumps(redact({"key": key, "calls": list(calls)}), ensure_ascii=False, separators=(",", ":"))
             for key, calls in kept.items() if calls]  # redacted like a cassette: a reply may quote a key
    if not lines:
        if path.exists():
            path.unlink()
        return
    part = path.with_name(path.name + ".part")
    with open(part, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)


def cut_record(condition: Condition, ticket: str, trial: int, seed: int, *, calls: Sequence[CutCall],
               unused: Sequence[KeptCall] = (), source: Source | None, experiment: str, why: str) -> Record:
    """The results line that carries what an interrupted episode paid for and kept no reply of: its calls cut off
    in flight (estimated high), and kept replies a resumed episode did not ask for again (it took another path)."""
    tokens_in = sum(c["input_tokens"] for c in calls) + sum(c["input_tokens"] for c in unused)
    tokens_out = sum(c["output_tokens"] for c in calls) + sum(c["output_tokens"] for c in unused)
    cost = sum(c["cost_usd"] for c in calls) + sum(c["cost_usd"] for c in unused)
    parts = [f"{len(calls)} call(s) sent and cut off before the reply came (cost estimated high)"] if calls else []
    parts += [f"{len(unused)} kept reply(ies) the resumed episode did not ask for again"] if unused else []
    note = f"{why}: {' and '.join(parts)}; paid for with no reply kept, and counted against the budget (--budget)."
    return _record(condition, ticket, trial, seed, experiment, **_source_fields(source), stop_reason=API_FAILURE,
                   api_failure=INTERRUPTED, api_error=redact(note)[:500], input_tokens=tokens_in,
                   output_tokens=tokens_out, cost_usd=cost)


def keeper_for(model: str, source: Source, todo: Sequence[str], held: Mapping[str, Sequence[KeptCall]]) -> CallKeeper:
    """What keeps a live sweep's paid calls: each reply priced as the run prices it, and the replies an interrupted
    run kept for the episodes this one resumes (`todo`)."""
    keeper = CallKeeper(price=lambda tokens_in, tokens_out: run_cost_usd(model, source, tokens_in, tokens_out))
    keeper.pending = {key: list(held[key]) for key in todo if key in held}
    return keeper


def settle(out: str | os.PathLike[str] | None, experiment: str, keeper: CallKeeper, *, cause: str | None,
           started: Collection[str], cut: Sequence[str], plan: Mapping[str, Episode], done: Collection[str],
           new: Collection[str], held: Mapping[str, Sequence[KeptCall]], source: Source) -> str:
    """After a live sweep, stopped or not: the spend no record carries goes to the results (calls cut off in
    flight, kept replies a resumed episode did not use), and the kept replies of the `cut` episodes (started, no
    record) to the pending file, with those of earlier runs this one did not start. `done`: the episodes with a
    record from before, `new`: this run's. Returns what an interrupt kept, in words ("" when nothing)."""
    lines: list[Record] = []
    for key in [*cut, *sorted(k for k in new if keeper.unused.get(k))]:
        calls, unused, e = keeper.cut.get(key, []), keeper.unused.get(key, []), plan[key]
        if calls or unused:
            why = "a resumed episode took another path" if key in new else f"interrupted ({cause or 'Ctrl-C'})"
            lines.append(cut_record(e.condition, e.ticket, e.trial, e.seed, calls=calls, unused=unused, source=source,
                                    experiment=experiment, why=why))
    if lines and out is not None:
        with ResultsWriter(out) as writer:
            for line in lines:
                writer.append(line)
    pending = {k: list(v) for k, v in held.items() if k not in started and k not in done and k not in new}
    pending.update({k: keeper.kept.get(k, []) + keeper.pending.get(k, []) for k in cut})
    write_pending(out, pending)
    kept = sum(len(keeper.kept.get(k, [])) + len(keeper.pending.get(k, [])) for k in cut)
    lost = [c for k in cut for c in keeper.cut.get(k, [])]
    words = [f"the replies of {kept} call(s) of {len(cut)} unfinished episode(s) are kept in "
             f"{pending_path(out) or 'memory only (no out=: they are lost with this process)'}, so the resume does "
             "not pay for them again"] if kept else []
    words += [f"{len(lost)} call(s) cut off in flight, about ${sum(c['cost_usd'] for c in lost):,.4f} at most, are "
              "counted in the results against the budget, and the resume sends them again"] if lost else []
    return "; ".join(words)
