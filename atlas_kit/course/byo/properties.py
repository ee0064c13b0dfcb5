"""The seven properties every dispatcher keeps, each a judge of one dispatched case (probe.Outcome).

A judge returns None when its property holds, UNJUDGED when it cannot look, else what went wrong and
what to change. They reuse the builder (errors.tool_error), its internals guard and trace.redact, so a
learner's dispatcher answers to the rules the library's does. audit.py runs them. Chapter 13.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from ...dispatch.breaker import canonical_args
from ...contract.errors import _INTERNALS, Branch, Next, error_schema, tool_error
from ...contract.redaction import redact
from ...types.sets import JSONObject
from .probe import KINDS, STOCK, VALUE, Outcome, Runaway, Turns, answerable, kind_of, repeated_of, results_of

if TYPE_CHECKING:
    import jsonschema

PROPERTIES: dict[str, str] = {  # name -> the case letter (probe.CASES) it is judged on
    "never raises": "m", "one result per id, in order": "m", "no internals": "m", "no echoed argument": "m",
    "errors follow the contract": "m", "transients retried with one key": "r", "breaker fires on the repeated triple": "b",
}
_NAMES = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Failure)\b|\bTransient\(")
_FAILING = ("refuses", "crashes", "down", "unknown")
UNJUDGED = "unjudged"  # the judge could not look: dispatch raised, or returned the wrong shape


def _text(result: object) -> str:
    content = result.get("content") if isinstance(result, dict) else result
    if isinstance(content, list):
        return " ".join(str(c.get("text", c)) if isinstance(c, dict) else str(c) for c in content)
    return content if isinstance(content, str) else json.dumps(content, default=str)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return [s for v in value for s in _strings(v)] if isinstance(value, list) else []


def _should_fail(block: JSONObject, result: object) -> bool:
    return kind_of(block["name"]) in _FAILING or (isinstance(result, dict) and bool(result.get("is_error")))


# --- the judges: None when the property holds on the outcome, else what went wrong -------------------

def _never_raises(o: Outcome) -> str | None:
    if o.raised is None or isinstance(o.raised, Runaway):
        return None
    said = redact(str(o.raised).splitlines()[0][:160]) if str(o.raised) else ""
    return (f"your dispatch raised {type(o.raised).__name__}({said!r}). Whatever a tool or a message does, "
            "answer with a result: catch it and turn it into a contract error.")


def _one_per_id(o: Outcome) -> str | None:
    if o.raised is not None:
        return UNJUDGED
    for blocks, ret in zip(o.turns, o.returns):
        results = results_of(ret)
        if results is None:
            return (f"your dispatch returned {type(ret).__name__} {str(ret)[:80]!r}; return a pair (results, repeated): "
                    "the list of tool_result blocks, and the repeated triple or None.")
        issued = [b["id"] for b in answerable(blocks)]
        got = [r.get("tool_use_id") if isinstance(r, dict) else r for r in results]
        ids = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        twice = next((i for i in issued if ids.count(i) > 1 and got.count(i) > 1), None)
        if twice is not None:
            return (f"the message issues {twice} twice and your dispatch answered it {got.count(twice)} times. Every "
                    "id gets exactly one tool_result: answer its first block, and skip the repeat without running it "
                    "(chapter 10).")
        if len(got) != len(issued):
            return (f"{len(got)} result(s) came back for {len(issued)} tool_use id(s). Every id gets exactly one "
                    "tool_result, also when its tool raises, and a block that is not a tool_use gets none.")
        if got != issued:
            return (f"the results answer ids {got} where the message issued {issued}: answer each id with its own "
                    "tool_use_id, in the order the message issued them.")
        wrong = [r for r in results if not isinstance(r, dict) or r.get("type") != "tool_result"]
        if wrong:
            return (f"a result is {str(wrong[0])[:60]!r}; each is a dict with \"type\": \"tool_result\", its "
                    "\"tool_use_id\" and its \"content\".")
    return _ran_a_repeat(o)


def _ran_a_repeat(o: Outcome) -> str | None:
    """A block whose id the message already used must not run: its tool would act for a call nobody answers."""
    answered = [b for blocks in o.turns for b in answerable(blocks)]
    repeats = [b for blocks in o.turns for b in blocks if b.get("type") == "tool_use" and not any(b is a for a in answered)]
    ran = [name for name, _, _ in o.probe.log]
    for b in repeats:
        once = kind_of(b["name"]) in ("ok", "refuses", "crashes")  # tools the harness never retries
        if once and ran.count(b["name"]) > sum(a["name"] == b["name"] for a in answered):
            return (f"the message issues {b['id']} twice and your dispatch ran {b['name']} for the repeat, though the id "
                    "was already answered: skip a repeated id without calling its tool (chapter 10).")
    return None


def _no_internals(o: Outcome) -> str | None:
    pairs = o.pairs()
    if pairs is None:
        return UNJUDGED
    for _, block, result in pairs:
        if not _should_fail(block, result):
            continue
        text = _text(result)
        clean = redact(text)  # a key is named, never quoted back
        leaks = ["an API key"] if clean != text else []
        leaks += [repr(m.group(0)[:60]) for m in (_INTERNALS.search(clean), _NAMES.search(clean)) if m]
        leaks += [repr(redact(p)[:60]) for p in sorted(o.probe.planted) if p in text]
        if leaks:
            return (f"the result for {block['name']} contains {' and '.join(leaks[:2])}, which is for the trace, not the "
                    "model. Say what happened and what to do in your own words; never pass on str(exc), repr(exc) or "
                    "the tool's raw text.")
    return None


def _no_echo(o: Outcome) -> str | None:
    pairs = o.pairs()
    if pairs is None:
        return UNJUDGED
    for _, block, result in pairs:
        if not _should_fail(block, result):
            continue
        text = _text(result)
        sent = [s for s in _strings(block["input"]) if len(s) >= 6 and s not in KINDS]
        if kind_of(block["name"]) == "unknown" and len(block["name"]) >= 6:
            sent.append(block["name"])
        for value in sent:
            if value in text or json.dumps(value)[1:-1] in text:
                return (f"the error for {block['name']} repeats {value!r}, which the model sent. An error names the "
                        "argument or says what exists; it never repeats a value it was given.")
    return None


@lru_cache(maxsize=1)
def _schema() -> jsonschema.Draft202012Validator:
    import jsonschema  # on first use: importing it costs about a second that a kernel should pay only when judging

    return jsonschema.Draft202012Validator(error_schema())


def _contract_problem(result: JSONObject) -> str | None:
    if result.get("is_error") is not True:
        return "it is not marked \"is_error\": True"
    content = result.get("content")
    not_a_body = f"its content {_text(result)[:60]!r} is not a contract body (build it with tool_error(...).block())"
    if not isinstance(content, (str, bytes, bytearray)):
        return not_a_body
    try:
        body = json.loads(content)
    except ValueError:
        return not_a_body
    problem = next(iter(_schema().iter_errors(body)), None)
    if problem is not None:
        return f"its body breaks the error schema ({problem.message[:120]})"
    nxt = body.get("next")
    try:  # the builder's own rules: message length and sentences, no internals, a branch the code allows
        tool_error(str(result.get("tool_use_id") or "toolu_check"), body["error"], body["message"],
                   next=Next(Branch(nxt["branch"]), nxt["say"], nxt.get("tool"), nxt.get("argument")) if nxt else None)
    except (TypeError, ValueError) as exc:
        return f"the builder refuses it: {exc}"
    return None


def _contract(o: Outcome) -> str | None:
    pairs = o.pairs()
    if pairs is None:
        return UNJUDGED
    for t, block, result in pairs:
        name, kind = block["name"], kind_of(block["name"])  # Outcome.pairs holds dict results only
        if kind in ("ok", "flaky") and not result.get("is_error"):
            want = VALUE if kind == "ok" else STOCK
            try:
                same = json.loads(_text(result)) == want
            except ValueError:
                same = False
            if not same:
                return (f"{name} returned {json.dumps(want)}, and its result's content is {_text(result)[:60]!r}. "
                        "Send the tool's value as JSON text, json.dumps(value).")
            continue
        if kind == "ok":
            return f"{name} succeeded, yet its result is marked is_error; only a failed call is an error."
        problem = _contract_problem(result)
        if problem:
            return f"the result for {name} is not a contract error: {problem}."
        body = json.loads(result["content"])
        code, branch = body["error"], (body.get("next") or {}).get("branch")
        if kind == "refuses":
            want_code = "not_found" if name == "find_invoice" or t == 0 else "invalid_argument"
            want_branch = "stop" if want_code == "not_found" else "retry_changed"
            if (code, branch) != (want_code, want_branch):
                return (f"{name} raised ToolFailure({want_code!r}, ..., next={want_branch}) and the model was told "
                        f"{code!r} with next {branch}. Keep the tool's code, message and next: it knows what to do.")
            if body["message"] not in o.probe.said:
                return (f"{name} refused with its own message, and the model was told {body['message'][:80]!r}. Pass "
                        "the ToolFailure's message on as it is: it is the instruction the tool wrote for the model.")
        elif kind in ("crashes", "flaky", "down") and code != "upstream_unavailable":
            return (f"{name} {'crashed' if kind == 'crashes' else 'did not answer'} and the model was told {code!r}. A "
                    "failure the model cannot fix is upstream_unavailable, not retryable, with next stop.")
    return None


def _retries(o: Outcome) -> str | None:
    if isinstance(o.raised, Runaway):
        return "your dispatch called the tools more than 50 times: bound the attempts (the library makes 3)."
    pairs = o.pairs()
    if pairs is None:
        return UNJUDGED
    for name in dict.fromkeys(b["name"] for _, b, _ in pairs):
        kind, n = kind_of(name), sum(b["name"] == name for _, b, _ in pairs)
        keys = o.probe.calls(name)
        distinct = list(dict.fromkeys(map(repr, keys)))
        if kind in ("refuses", "crashes") and len(keys) != n:
            what = "refusal" if kind == "refuses" else "crash (it may have done half its work)"
            return (f"the {what} of {name} was tried {len(keys)} times for {n} call(s). The harness retries only "
                    "Transient and TimeoutError; anything else is answered at once.")
        if kind not in ("flaky", "down"):
            continue
        if any(k is None for k in keys):
            return (f"{name} was called without an idempotency key. Pass tool(args, key=...) on every attempt, with a key "
                    "made from the tool_use id, so a retried side effect is applied once.")
        if len(distinct) < n:
            return (f"{n} separate {name} calls shared the key {distinct[0]}: a new tool_use is a new request and needs "
                    "its own key, even with the same arguments; make the key from the tool_use id.")
        if len(distinct) > n:
            return (f"the attempts at one {name} call used different keys ({', '.join(distinct[:3])}): every attempt "
                    "of one tool_use must carry the same key, or the service cannot tell a retry from a new request.")
        if len(keys) < 2 * n:
            return (f"{name} failed transiently and was tried {len(keys)} time(s) for {n} call(s): retry Transient and "
                    "TimeoutError in the harness before the model hears of it.")
        if kind == "down" and len(keys) > 10 * n:
            return f"{name} stays down and was tried {len(keys)} times for {n} call(s); give up after a few attempts."
        if kind == "flaky" and any(r.get("is_error") for _, b, r in pairs if b["name"] == name):
            return f"{name} succeeded on a retry, yet the model was sent an error; send the retry's value."
    return None


def _expected_fires(turns: Turns) -> list[bool]:
    """The library's rule: a turn fires when a failed (tool, canonical arguments, error) triple repeats."""
    seen: set[tuple[str, str, str]] = set()
    fires: list[bool] = []
    for t, blocks in enumerate(turns):
        fire = False
        for b in answerable(blocks):  # a repeated id is not run, so it cannot fail
            kind = kind_of(b.get("name"))
            if kind in ("ok", "flaky"):
                continue
            code = "invalid_argument" if b["name"] == "flip" and t > 0 else kind
            triple = (b["name"], canonical_args(b["input"]), code)
            fire = fire or triple in seen
            seen.add(triple)
        fires.append(fire)
    return fires


def _breaker(o: Outcome) -> str | None:
    if o.raised is not None or any(results_of(r) is None for r in o.returns):
        return UNJUDGED
    fired = [(repeated := repeated_of(r)) is not None and repeated is not False for r in o.returns]
    for t, (got, want) in enumerate(zip(fired, _expected_fires(o.turns))):
        if want and not got:
            return (f"message {t + 1} repeats a failed call (same tool, same arguments, same error code) and your "
                    "breaker did not fire. Key it on (tool, canonical arguments, code), whatever the message says.")
        if got and not want:
            return (f"your breaker fired on message {t + 1}, where no (tool, arguments, error code) triple had failed "
                    "before. Count failures only, and only an identical triple as a repeat.")
    return None


JUDGES: dict[str, Callable[[Outcome], str | None]] = dict(zip(PROPERTIES, (
    _never_raises, _one_per_id, _no_internals, _no_echo, _contract, _retries, _breaker)))
