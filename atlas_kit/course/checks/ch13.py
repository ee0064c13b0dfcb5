"""Checks for chapter 13's exercises: your own dispatcher, judged by the contract's seven properties with the
smallest input that breaks one (13.1), and the harness retry that honours Retry-After as the library does (13.2).
"""
from __future__ import annotations

import inspect
import json
from typing import Callable

from ..byo.audit import first_violation
from ..byo.probe import CASES, run
from ...dispatch.transient import Transient
from ...contract.errors import Branch, ErrorCode, Next, ToolFailure, stop
from ...types.sets import JSONObject
from ._registry import Finding, exercise
from ._text import contradicts


def _takes(fn: Callable[..., object], n: int) -> bool:
    try:
        inspect.signature(fn).bind(*range(n))
    except TypeError:
        return False
    except ValueError:  # a builtin without a signature: let the call decide
        return True
    return True


@exercise("13.1", "Your own dispatcher",
          right="One result per id in order (a repeated id answered once and not run), contract errors with nothing "
                "echoed or leaked, transients retried "
                "with one key per tool_use, and a breaker on the repeated (tool, arguments, code) triple.",
          hints=("Answer one block at a time with a helper that returns (result, error code or None), and catch "
                 "ToolFailure, then Transient and TimeoutError, then any other Exception, each separately.",
                 "Build every error with tool_error(block['id'], code, message, next=...).block(): pass on a "
                 "ToolFailure's code, message and next; for the rest write your own words, never str(exc).",
                 "Retry Transient and TimeoutError up to 3 times with key=block['id']; then keep "
                 "(name, json.dumps(input, sort_keys=True), code) in seen and return the first triple already there.",
                 "Keep the ids this message has already had answered: a tool_use whose id repeats one gets no second "
                 "result, and its tool is not run (chapter 13, section 2: first_of_each_id)."),
          judges=("structure", "forbidden", "contradiction"))
def _check_dispatch(fn: object) -> str | Finding | None:
    """Structure: the five structural properties of probe.CASES (byo.properties), one result per id among them.
    Forbidden: internals and echoed values in the results. Contradiction: an error's words claiming the call was done,
    inviting a retry its branch forbids, or contradicting themselves. The messages are not read for their ideas."""
    if not callable(fn):
        return "Pass your function dispatch itself (no parentheses): the check calls it as dispatch(content, tools, seen)."
    if not _takes(fn, 3):
        return ("dispatch takes three arguments, (content, tools, seen): seen is the set the loop keeps for one run, "
                "so the breaker can remember earlier messages.")
    verdict = first_violation(fn)
    if verdict is not None:
        return Finding("forbidden" if verdict.prop in _FORBIDDEN else "structure", verdict.feedback())
    return _contradicted(fn)


_FORBIDDEN = ("no internals", "no echoed argument")  # the properties about what a result may not say
_FAILING_CASES = ("a tool that refuses", "a tool that crashes", "a tool that does not exist",
                  "a service that stays down")


def _contradicted(fn: Callable[..., object]) -> Finding | None:
    """The first error your dispatch wrote whose words contradict its own code and branch (its structure holds)."""
    for case in (c for c in CASES if c.name in _FAILING_CASES):
        for _, _, result in run(fn, case.turns).pairs() or ():
            error = _error_of(result)
            if error is None:
                continue
            code, nxt, message = error
            said = contradicts((message, nxt.say if nxt else ""), code=code, nxt=nxt)
            if said is not None:
                return Finding("contradiction", f"on {case.name}, your error {said}")
    return None


def _error_of(result: JSONObject) -> tuple[ErrorCode, Next | None, str] | None:
    """A contract error block's code, next and message; None for a success (the structure is judged elsewhere)."""
    try:
        body = json.loads(str(result.get("content")))
        code = ErrorCode(body["error"])
        step = body.get("next")
        nxt = Next(Branch(step["branch"]), str(step.get("say", "")), step.get("tool"), step.get("argument")) \
            if isinstance(step, dict) else None
    except (ValueError, TypeError, KeyError):
        return None
    return code, nxt, str(body.get("message", ""))


class _Flaky:
    """A tool whose first `fail` attempts raise `error()`; it records the key of every attempt."""

    def __init__(self, fail: int, error: Callable[[], BaseException]) -> None:
        self.fail, self.error = fail, error
        self.keys: list[object] = []

    def __call__(self, args: object, key: object = None) -> JSONObject:
        self.keys.append(key)
        if len(self.keys) <= self.fail:
            raise self.error()
        return {"on_hand": 42}


def _timeout() -> BaseException:
    return TimeoutError("stock-db.internal:443 did not respond")


_BACKOFF = "Three attempts in all; before each retry wait 0.25 s, doubling each time (0.25, then 0.5)."
_SHORT = "Wait what the upstream asks for (exc.retry_after) when it is 4 s or less."
_LONG = "A Retry-After above 4 s means give up at once: a customer is waiting."
_ONLY = "Only Transient and TimeoutError are retried; anything else is raised at once, untried."
_RETRY_CASES: tuple[tuple[str, int, Callable[[], BaseException], bool, list[float], int, str], ...] = (
    # (what happens, failing attempts, the failure, raised in the end?, the waits, the attempts, advice)
    ("a call that succeeds at once", 0, _timeout, False, [], 1, _BACKOFF),
    ("one Transient with no Retry-After", 1, lambda: Transient("503"), False, [0.25], 2, _BACKOFF),
    ("two timeouts", 2, _timeout, False, [0.25, 0.5], 3, _BACKOFF),
    ("a service that stays down", 99, lambda: Transient("503"), True, [0.25, 0.5], 3, _BACKOFF),
    ("a 429 with Retry-After: 2", 1, lambda: Transient("429", retry_after=2.0, kind="rate_limit"), False, [2.0], 2, _SHORT),
    ("a 429 with Retry-After: 4", 1, lambda: Transient("429", retry_after=4.0, kind="rate_limit"), False, [4.0], 2, _SHORT),
    ("a 429 with Retry-After: 30", 99, lambda: Transient("429", retry_after=30.0, kind="rate_limit"), True, [], 1, _LONG),
    ("a refusal (ToolFailure)", 99, lambda: ToolFailure("not_found", "No invoice matches invoice_id.",
                                                        next=stop("Tell the customer.")), True, [], 1, _ONLY),
    ("a crash (RuntimeError)", 99, lambda: RuntimeError("boom"), True, [], 1, _ONLY),
)


@exercise("13.2", "A harness retry that honours Retry-After",
          right="Transients retried three times with one key and a doubling wait, a short Retry-After waited "
                "out, a long one given up at once, and refusals and crashes never retried.",
          hints=("Loop over attempts 1, 2, 3; call tool(args, key=key) inside try, and catch only Transient and "
                 "TimeoutError.",
                 "On a catch: re-raise if this was the last attempt, or if the failure's retry_after is above 4; "
                 "getattr(exc, 'retry_after', None) works for both kinds.",
                 "Otherwise wait retry_after when there is one, else 0.25 * 2 ** (attempt - 1), with sleep(...), "
                 "and go round again."))
def _check_retry(fn: object) -> str | None:
    """Structure: attempts, keys and waits on nine cases, equal to the library's policy. No free text is read."""
    if not callable(fn) or not _takes(fn, 4):
        return "Pass your function retry itself: the check calls it as retry(tool, args, key, sleep)."
    for what, fail, error, raises, waits, attempts, advice in _RETRY_CASES:
        tool, slept = _Flaky(fail, error), list[float]()
        want = type(error()).__name__
        try:
            got, raised = fn(tool, {"sku": "SKU-2041"}, "toolu_check", slept.append), None
        except Exception as exc:  # the learner's retry is allowed to be wrong; say how
            got, raised = None, exc
        tried = f"tried {len(tool.keys)} time(s), waiting {slept}"
        if raises and (raised is None or type(raised).__name__ != want):
            said = "returned " + repr(got)[:40] if raised is None else f"raised {type(raised).__name__}"
            return f"On {what} your retry {said} ({tried}); it should raise the {want} itself once it gives up."
        if not raises and raised is not None:
            return f"On {what} your retry raised {type(raised).__name__} ({tried}); it should return the tool's value."
        if not raises and got != {"on_hand": 42}:
            return f"On {what} your retry returned {got!r}; return what the tool returned."
        if len(tool.keys) != attempts:
            return f"On {what} your retry {tried}, where the harness tries {attempts} time(s). {advice}"
        if any(k != "toolu_check" for k in tool.keys):
            return (f"On {what} the attempts carried the keys {tool.keys}; pass key=key, the key you were given, "
                    "on every attempt.")
        if [round(float(s), 6) for s in slept] != waits:
            return f"On {what} your retry waited {slept}, where the library's policy waits {waits}. {advice}"
    return None

