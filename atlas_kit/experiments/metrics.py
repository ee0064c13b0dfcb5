"""The course's measurements, as pure functions over lists of episode records (see results.py).

Recovery with Wilson intervals, paired recovery, pass^k, failure-mode rates and use per ticket;
each function states its definition. Records of episodes the harness could not finish, and of
episodes that ended at the API (no model failed there), are left out of every figure and counted
apart by `api_failures`. Taught in chapters 07 and 11.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence, TypeVar, Union, overload

from ..atlas.grade import LABELS
from ..stats import Z95, Rate, wilson
from ..types.results import API_FAILURE, HARNESS_ERROR
from .captions import data_caption
from ..types.records import Record, TableRows
from ..types.exceptions import AtlasKitValueError

By = Union[str, Sequence[str], Callable[[Record], object]]
K = TypeVar("K")


def usable(records: Iterable[Record]) -> list[Record]:
    """The records every metric counts: all but episodes the harness failed to finish or that ended at the API."""
    return [r for r in records if r.get("stop_reason") not in (HARNESS_ERROR, API_FAILURE)]


def api_failures(records: Iterable[Record]) -> dict[str, int]:
    """Episodes that ended at the API, counted by reason (authentication, rate_limit, overloaded, ...), most first."""
    counts: dict[str, int] = {}
    for r in records:
        if r.get("stop_reason") == API_FAILURE:
            reason = str(r.get("api_failure") or "unknown")
            counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def describe_api_failures(records: Iterable[Record]) -> str:
    """One sentence on the episodes that ended at the API, or "" when there were none."""
    counts = api_failures(records)
    if not counts:
        return ""
    reasons = ", ".join(f"{reason} {n}" for reason, n in counts.items())
    return (f"{sum(counts.values())} episode(s) failed at the API ({reasons}) and are left out: no model "
            "answered them, and a rerun retries them.")


@overload
def groups(records: Iterable[Record], by: str) -> dict[object, list[Record]]: ...
@overload
def groups(records: Iterable[Record], by: tuple[str, ...] | list[str]) -> dict[tuple[object, ...], list[Record]]: ...
@overload
def groups(records: Iterable[Record], by: Callable[[Record], K]) -> dict[K, list[Record]]: ...
# The overloads give each caller its key type; the one body serves all three, so its own return cannot name one.
def groups(records: Iterable[Record], by: By) -> dict[Any, list[Record]]:
    """Records grouped by a field, a tuple of fields, or a function; keys sorted.

    A list-valued field (error_codes, branches, labels) puts a record in the group of each element,
    so `groups(records, "error_codes")` answers "episodes that hit this code".
    """
    out: dict[object, list[Record]] = {}
    for r in records:
        keys: list[object]
        if callable(by):
            keys = [by(r)]
        elif isinstance(by, str):
            keys = _values(r.get(by))
        else:  # one key per combination, list-valued fields expanded as above
            keys = list(itertools.product(*(_values(r.get(f)) for f in by)))
        for key in keys:
            out.setdefault(key, []).append(r)
    return {k: out[k] for k in sorted(out, key=lambda k: (str(type(k)), str(k)))}


def _values(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else [value]


def recovery(records: Iterable[Record]) -> Rate:
    """Recovery rate = P(correct | hit_error): of the episodes where at least one tool error reached
    the model, the share graded correct. Per code or branch: `{k: recovery(g) for k, g in groups(rs, "error_codes").items()}`."""
    hit = [r for r in usable(records) if r["hit_error"]]
    return Rate(sum(bool(r["correct"]) for r in hit), len(hit))


def success(records: Iterable[Record]) -> Rate:
    """Success rate = P(correct) over every episode, errors or not."""
    rs = usable(records)
    return Rate(sum(bool(r["correct"]) for r in rs), len(rs))


@dataclass(frozen=True)
class Paired:
    """One ticket run with and without its faults; `ratio` is None when nothing succeeded without them."""

    with_faults: Rate
    without: Rate

    @property
    def ratio(self) -> float | None:
        if not self.without.n or not self.without.successes or not self.with_faults.n:
            return None
        return self.with_faults.rate / self.without.rate


def paired_recovery(records: Iterable[Record]) -> dict[str, Paired]:
    """Paired recovery per ticket = success rate with faults / success rate without faults.

    The ticket is its own control: the same customer request, once with the failures injected.
    Only tickets run both ways appear. Filter to one style (or other condition) first to compare arms.
    """
    out = {}
    for ticket, rs in groups(usable(records), _ticket).items():
        on = [r for r in rs if r["faults"]]
        off = [r for r in rs if not r["faults"]]
        if on and off:
            out[ticket] = Paired(success(on), success(off))
    return out


def pass_k(records: Iterable[Record], k: int) -> float:
    """pass^k: the chance that k trials of a ticket all succeed, averaged over tickets.

    Per (condition, ticket) cell with n trials and c correct, the unbiased estimator is
    C(c, k) / C(n, k); cells with fewer than k trials are left out. The mean over cells is returned.
    """
    if k < 1:
        raise AtlasKitValueError(f"pass_k needs k >= 1 (the number of trials that must all succeed); got k={k}.")
    cells = groups(usable(records), ("model", "style", "faults", "break_loops", "profile", "ticket"))
    values = [math.comb(sum(bool(r["correct"]) for r in rs), k) / math.comb(len(rs), k)
              for rs in cells.values() if len(rs) >= k]
    if not values:
        most = max((len(rs) for rs in cells.values()), default=0)
        raise AtlasKitValueError(f"pass_k(k={k}) needs a ticket with at least {k} trials; the records have at most {most}. "
                         "Run more trials or choose a smaller k.")
    return sum(values) / len(values)


def failure_modes(records: Iterable[Record]) -> dict[str, Rate]:
    """Per grader label: the share of episodes that carry it (an episode may carry several)."""
    rs = usable(records)
    seen = {label for r in rs for label in r["labels"]}
    names = [*LABELS, *sorted(seen - set(LABELS))]
    return {label: Rate(sum(label in r["labels"] for r in rs), len(rs)) for label in names}


@dataclass(frozen=True)
class Use:
    """Means per episode of one ticket: model turns, tool calls, context (input) tokens, output tokens, cost."""

    n: int
    turns: float
    tool_calls: float
    input_tokens: float
    output_tokens: float
    cost_usd: float


def per_ticket(records: Iterable[Record]) -> dict[str, Use]:
    """Use per ticket: each field is the mean over that ticket's episodes. Turns are model calls."""
    out = {}
    for ticket, rs in groups(usable(records), _ticket).items():
        n = len(rs)
        out[ticket] = Use(n, sum(r["steps"] for r in rs) / n, sum(r["tool_calls"] for r in rs) / n,
                          sum(r["input_tokens"] for r in rs) / n, sum(r["output_tokens"] for r in rs) / n,
                          sum(r["cost_usd"] for r in rs) / n)
    return out


def recovery_rows(records: Sequence[Record], *, by: Sequence[str] = ("style",)) -> TableRows:
    """Recovery and success per group, each with its Wilson 95% interval, captioned with the data's source
    (tables.recovery_table shows them)."""
    columns = [*(f.replace("break_loops", "loop breaker") for f in by), "episodes", "hit error",
               "recovery [95% CI]", "success [95% CI]"]
    rows: list[list[object]] = []
    for key, rs in groups(records, tuple(by)).items():
        rec, ok = recovery(rs), success(rs)
        rows.append([*(_show(v) for v in key), len(usable(rs)), rec.n, rec.brief, ok.brief])
    caption = f"Recovery = P(correct | a tool error reached the model). {data_caption(records)}"
    broken = sum(r.get("stop_reason") == HARNESS_ERROR for r in records)
    if broken:
        caption += f" {broken} episode(s) failed inside the harness and are left out; see their harness_error."
    if failed := describe_api_failures(records):
        caption += f" {failed}"
    return TableRows(columns, rows, caption)


def _ticket(record: Record) -> str:
    return record["ticket"]


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "-" if value is None else str(value)
