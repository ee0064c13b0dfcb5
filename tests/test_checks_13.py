"""The checks of exercises 13.1 and 13.2: the solution and several differently written correct answers pass; a
blank and each typical wrong answer fail, naming the property (13.1) or the case (13.2) that catches them."""
from __future__ import annotations

import json

import pytest

from atlas_kit import ToolFailure, Transient, retry_changed, stop, tool_error
from atlas_kit.course.byo import PROPERTIES
from atlas_kit.course.byo.audit import audit
from atlas_kit.course.byo.probe import answerable
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check

NEVER, ONE, INTERNALS, ECHO, CONTRACT, RETRIES, BREAKER = PROPERTIES


# --- the solution, as solutions/13_build_your_own_loop.ipynb writes it ----------------------------------------

def dispatch(content, tools, seen):
    def attempt(tool, args, key, attempts=3):
        for n in range(1, attempts + 1):
            try:
                return tool(args, key=key)
            except (Transient, TimeoutError):
                if n == attempts:
                    raise

    unknown = "Tell the customer you could not confirm whether it went through, and offer to escalate to a person."

    def answer(block):
        use_id, name = block["id"], block["name"]
        try:
            if name not in tools:
                raise ToolFailure("invalid_argument", f"No tool has that name; the tools are: {', '.join(tools)}.",
                                  next=retry_changed("name", "Call one of the listed tools instead."))
            value = attempt(tools[name], block["input"], use_id)
            return {"type": "tool_result", "tool_use_id": use_id, "content": json.dumps(value)}, None
        except ToolFailure as failure:
            error = tool_error(use_id, failure.code, failure.message, next=failure.next)
        except (Transient, TimeoutError):  # a lost reply may follow a change that was made: the outcome is unknown
            error = tool_error(use_id, "upstream_unavailable", f"The {name} service is not responding right now, "
                               "so the request may or may not have been applied.", next=stop(unknown))
        except Exception:
            error = tool_error(use_id, "upstream_unavailable", "The tool failed unexpectedly, so the request may or "
                               "may not have been applied.", next=stop(f"Do not call it again. {unknown}"))
        return error.block(), error.code.value

    results, repeated, answered = [], None, set()
    for block in content:
        if block["type"] != "tool_use" or block["id"] in answered:
            continue  # a repeated id gets no second result, and its tool is not run (chapter 10)
        answered.add(block["id"])
        result, code = answer(block)
        results.append(result)
        if code is not None:
            triple = (block["name"], json.dumps(block["input"], sort_keys=True), code)
            if triple in seen and repeated is None:
                repeated = triple
            seen.add(triple)
    return results, repeated


def retry(tool, args, key, sleep):
    for attempt in range(1, 4):
        try:
            return tool(args, key=key)
        except (Transient, TimeoutError) as exc:
            after = getattr(exc, "retry_after", None)
            if attempt == 3 or (after is not None and after > 4):
                raise
            sleep(after if after is not None else 0.25 * 2 ** (attempt - 1))


# --- other correct answers, written differently ------------------------------------------------------------------

def by_hand(content, tools, seen):
    """Bodies built as dicts, not with the builder; a key with a prefix; five attempts; a while loop."""
    def body(code, message, retryable, branch, say, **more):
        return json.dumps({"error": code, "message": message, "retryable": retryable,
                           "next": {"branch": branch, "say": say, **more}})

    out, loop = [], None
    for block in answerable(content):
        text, code = None, None
        tool = tools.get(block["name"])
        if tool is None:
            code, text = "invalid_argument", body("invalid_argument", "That tool does not exist; use a listed tool.",
                                                  True, "retry_changed", "Pick a listed tool.", argument="name")
        else:
            tries = 0
            while True:
                tries += 1
                try:
                    value = tool(block["input"], key="run-1:" + block["id"])
                except ToolFailure as f:
                    code = f.code.value
                    text = json.dumps(tool_error(block["id"], f.code, f.message, next=f.next).body())
                except (Transient, TimeoutError):
                    if tries < 5:
                        continue
                    code, text = "upstream_unavailable", body("upstream_unavailable", "The service is down.", False,
                                                              "stop", "Tell the customer to try later.")
                except Exception:
                    code, text = "upstream_unavailable", body("upstream_unavailable", "The tool broke.", False, "stop",
                                                              "Tell the customer it failed.")
                else:
                    out.append({"type": "tool_result", "tool_use_id": block["id"],
                                "content": json.dumps(value, separators=(",", ":"))})
                break
        if code is not None:
            out.append({"type": "tool_result", "tool_use_id": block["id"], "is_error": True, "content": text})
            triple = f"{block['name']}|{json.dumps(block['input'], sort_keys=True, separators=(',', ':'))}|{code}"
            loop = loop or (triple if triple in seen else None)
            seen.add(triple)
    return out, loop


class Harness:
    """A callable object with a helper per failure kind; the breaker returns True rather than the triple."""

    TRANSIENT = (Transient, TimeoutError)

    def __call__(self, content, tools, seen):
        results, fired = [], False
        answered = set()
        for block in content:
            if block["type"] == "tool_use" and block["id"] not in answered:
                answered.add(block["id"])
                result, code = self.one(block, tools)
                results.append(result)
                key = (block["name"], json.dumps(block["input"], sort_keys=True), code)
                fired = fired or (code is not None and key in seen)
                if code is not None:
                    seen.add(key)
        return results, fired or None

    def one(self, block, tools):
        try:
            return self.ok(block, self.call(tools[block["name"]], block)), None
        except KeyError:
            error = tool_error(block["id"], "not_found", "No such tool exists here.",
                               next=stop("Tell the customer you cannot do that."))
        except ToolFailure as f:
            error = tool_error(block["id"], f.code, f.message, next=f.next)
        except Exception:
            error = tool_error(block["id"], "upstream_unavailable", "It did not work this time.",
                               next=stop("Tell the customer and offer a person."))
        return error.block(), error.code.value

    def call(self, tool, block):
        for n in range(3):
            try:
                return tool(block["input"], block["id"])
            except self.TRANSIENT:
                if n == 2:
                    raise

    @staticmethod
    def ok(block, value):
        return {"type": "tool_result", "tool_use_id": block["id"], "content": json.dumps(value)}


RIGHT_13_1 = [dispatch, by_hand, Harness()]


def retry_recursive(tool, args, key, sleep, attempt=1):
    try:
        return tool(args, key=key)
    except (Transient, TimeoutError) as exc:
        after = getattr(exc, "retry_after", None)
        if attempt >= 3 or (after or 0) > 4:
            raise
    sleep(after if after is not None else 0.25 * 2 ** (attempt - 1))
    return retry_recursive(tool, args, key, sleep, attempt + 1)


def retry_waits_listed(tool, args, key, sleep):
    waits = iter([0.25, 0.5])
    while True:
        try:
            return tool(args, key=key)
        except (Transient, TimeoutError) as exc:
            wait = next(waits, None)
            after = exc.retry_after if isinstance(exc, Transient) else None
            if wait is None or (after is not None and after > 4):
                raise
            sleep(wait if after is None else after)


RIGHT_13_2 = [retry, retry_recursive, retry_waits_listed]


# --- wrong answers to 13.1: each a variant of a correct one that breaks one thing ------------------------------

def _variant(answer=None, key=None, attempts=3, retry_on=(Transient, TimeoutError), triple=None, result=None, twice=False):
    """The solution with one piece swapped: answer(block, tools) -> (result, code), the key, the triple, ...;
    twice: answer every tool_use block, a repeated id too."""
    def call(tool, args, use_id):
        for n in range(1, attempts + 1):
            try:
                return tool(args, key=key(use_id, args, n) if key else use_id)
            except retry_on:
                if n == attempts:
                    raise

    def one(block, tools):
        use_id, name = block["id"], block["name"]
        try:
            if name not in tools:
                raise ToolFailure("invalid_argument", "No tool has that name; use a listed tool.",
                                  next=retry_changed("name", "Call one of the listed tools."))
            value = call(tools[name], block["input"], use_id)
            return {"type": "tool_result", "tool_use_id": use_id, "content": json.dumps(value)}, None
        except ToolFailure as f:
            error = tool_error(use_id, f.code, f.message, next=f.next)
        except Exception:
            error = tool_error(use_id, "upstream_unavailable", "The tool failed; nothing was done.",
                               next=stop("Tell the customer it could not be done."))
        return error.block(), error.code.value

    def run(content, tools, seen):
        results, repeated = [], None
        for block in (content if twice else answerable(content)):
            if block["type"] != "tool_use":
                continue
            res, code = (answer or one)(block, tools)
            res = result(res, block, code) if result else res
            if res is not None:
                results.append(res)
            if code is not None:
                t = triple(block, code, res) if triple else (block["name"], json.dumps(block["input"], sort_keys=True), code)
                if t in seen and repeated is None:
                    repeated = t
                seen.add(t)
        return results, repeated
    return run


def _runs_the_repeat(content, tools, seen):
    """Answers each id once, but calls every block's tool: the repeat's side effect runs for nobody."""
    results, repeated = dispatch(content, tools, seen)
    for block in content:
        if block["type"] == "tool_use" and not any(block is b for b in answerable(content)) and block["name"] in tools:
            try:
                tools[block["name"]](block["input"], key=block["id"])
            except Exception:
                pass
    return results, repeated


def _last_answer_wins(content, tools, seen):
    """Results kept in a dict by id, so a repeated id's last block overwrites its first."""
    by_id = {}
    for block in (b for b in content if b["type"] == "tool_use"):
        by_id[block["id"]] = dispatch([block], tools, set())[0][0]
    return list(by_id.values()), None


def _contract_error(use_id, message, code="upstream_unavailable", **body):
    text = json.dumps({"error": code, "message": message, "retryable": code == "invalid_argument", **body})
    return {"type": "tool_result", "tool_use_id": use_id, "is_error": True, "content": text}


def _raising(*caught):
    """The solution's answer, except that it catches only `caught`: anything else escapes."""
    def one(block, tools):
        try:
            value = None
            for n in range(3):
                try:
                    value = tools[block["name"]](block["input"], key=block["id"])
                    break
                except (Transient, TimeoutError):
                    if n == 2:
                        raise
        except caught as exc:
            if isinstance(exc, ToolFailure):
                return tool_error(block["id"], exc.code, exc.message, next=exc.next).block(), exc.code.value
            return tool_error(block["id"], "upstream_unavailable", "It failed; nothing was done.",
                              next=stop("Tell the customer.")).block(), "upstream_unavailable"
        return {"type": "tool_result", "tool_use_id": block["id"], "content": json.dumps(value)}, None
    return one


def _message(make, code="upstream_unavailable"):
    """The solution, except that a crash's error is make(block, exc), sent with `code`."""
    def one(block, tools):
        try:
            value = tools[block["name"]](block["input"], key=block["id"]) if block["name"] in tools else None
            if block["name"] not in tools:
                raise ToolFailure("invalid_argument", "No tool has that name.", next=retry_changed("name", "Use another."))
            return {"type": "tool_result", "tool_use_id": block["id"], "content": json.dumps(value)}, None
        except ToolFailure as f:
            return tool_error(block["id"], f.code, f.message, next=f.next).block(), f.code.value
        except Exception as exc:
            return _contract_error(block["id"], make(block, exc), code=code), code
    return _variant(answer=one)


def _sdk_runner(content, tools, seen):  # what the anthropic SDK's tool runner sends: repr(exc)
    results = []
    for block in answerable(content):
        try:
            results.append({"type": "tool_result", "tool_use_id": block["id"],
                            "content": json.dumps(tools[block["name"]](block["input"]))})
        except Exception as exc:
            results.append({"type": "tool_result", "tool_use_id": block["id"], "is_error": True, "content": repr(exc)})
    return results, None


def _breaker(fire):
    """The solution's results, with the breaker replaced by fire(history, block, result) -> fired."""
    def run(content, tools, seen):
        results, _ = dispatch(content, tools, set())
        uses = answerable(content)
        repeated = None
        for block, result in zip(uses, results):
            if fire(seen, block, result) and repeated is None:
                repeated = "loop"
        return results, repeated
    return run


def _code(result):
    return json.loads(result["content"])["error"] if result.get("is_error") else None


def _keyed(make, failures_only=True):
    def fire(seen, block, result):
        if failures_only and not result.get("is_error"):
            return False
        key = make(block, result)
        hit = key in seen
        seen.add(key)
        return hit
    return _breaker(fire)


def _forgets(content, tools, seen):
    return dispatch(content, tools, set())


def _last_message_only(content, tools, seen):
    results, _ = dispatch(content, tools, set())
    earlier, repeated = set(seen), None
    seen.clear()  # forgets all but the previous message: a repeat two messages apart slips through
    for block, result in zip(answerable(content), results):
        if result.get("is_error"):
            triple = (block["name"], json.dumps(block["input"], sort_keys=True), _code(result))
            if (triple in earlier or triple in seen) and repeated is None:
                repeated = triple
            seen.add(triple)
    return results, repeated


def _first_failure(content, tools, seen):
    results, repeated = dispatch(content, tools, seen)
    return results, repeated or next((r for r in results if r.get("is_error")), None)


def _unbounded(content, tools, seen):
    def call(tool, args, key):
        while True:
            try:
                return tool(args, key=key)
            except (Transient, TimeoutError):
                continue
    return _variant(answer=lambda block, tools: _unbounded_one(block, tools, call))(content, tools, seen)


def _unbounded_one(block, tools, call):
    try:
        return {"type": "tool_result", "tool_use_id": block["id"],
                "content": json.dumps(call(tools[block["name"]], block["input"], block["id"]))}, None
    except ToolFailure as f:
        return tool_error(block["id"], f.code, f.message, next=f.next).block(), f.code.value
    except Exception:
        return tool_error(block["id"], "upstream_unavailable", "It failed.", next=stop("Tell the customer.")).block(), \
            "upstream_unavailable"


def _rewrite(change):
    """The solution, with each result replaced by change(result, block, code) (None drops it)."""
    return _variant(result=change)


def _all_upstream(res, block, code):
    if code is None:
        return res
    return tool_error(block["id"], "upstream_unavailable", "Something went wrong.", next=stop("Tell the customer.")).block()


def _solution_one(block, tools):
    result = dispatch([block], tools, set())[0][0]
    return result, _code(result)


def _echo_unknown(block, tools):
    if block["name"] in tools:
        return _solution_one(block, tools)
    error = tool_error(block["id"], "invalid_argument", f"There is no tool called {block['name']}.",
                       next=retry_changed("name", "Use a listed tool."))
    return error.block(), "invalid_argument"


def _passes_raw(content, tools, seen):
    """Hands the model a ToolFailure's raw text (what the library behind the tool said) as its message."""
    results = []
    for block in answerable(content):
        try:
            value = tools[block["name"]](block["input"], key=block["id"])
            results.append({"type": "tool_result", "tool_use_id": block["id"], "content": json.dumps(value)})
        except ToolFailure as f:
            results.append(_contract_error(block["id"], f.raw or f.message, code=f.code.value))
        except Exception:
            results.append(_contract_error(block["id"], "It failed."))
    return results, None


def _three_sentences(res, block, code):
    return _contract_error(block["id"], "It failed. It really did. Sorry.", code="not_found") if code == "not_found" else res


WRONG_13_1 = [
    # (the wrong answer, the property that must catch it, a fragment of the feedback)
    ("raises on an unknown tool", _variant(answer=_raising(ToolFailure, Transient, TimeoutError, RuntimeError,
                                                           ZeroDivisionError)), NEVER, "KeyError"),
    ("lets a ZeroDivisionError out", _variant(answer=_raising(ToolFailure, KeyError, Transient, TimeoutError,
                                                              RuntimeError)), NEVER, "ZeroDivisionError"),
    ("lets a transient out after the retries", _variant(answer=_raising(ToolFailure, KeyError, RuntimeError,
                                                                        ZeroDivisionError)), NEVER, "raised"),
    ("drops the result when a tool raises", _rewrite(lambda res, block, code:
                                                     None if code == "upstream_unavailable" else res), ONE, "came back"),
    ("puts the errors after the successes", lambda c, t, s: (lambda r: (sorted(r[0], key=lambda x: bool(
        x.get("is_error"))), r[1]))(dispatch(c, t, s)), ONE, "in the order"),
    ("numbers its own ids", lambda c, t, s: (lambda r: ([{**x, "tool_use_id": f"toolu_{i + 1:02d}"}
                                                        for i, x in enumerate(r[0])], r[1]))(dispatch(c, t, s)),
     ONE, "its own tool_use_id"),
    ("answers the text blocks too", lambda c, t, s: (lambda r: (r[0] + [{"type": "tool_result", "tool_use_id": b.get(
        "id"), "content": ""} for b in c if b["type"] != "tool_use"], r[1]))(dispatch(c, t, s)), ONE, "gets none"),
    ("returns the results alone", lambda c, t, s: dispatch(c, t, s)[0], ONE, "return a pair"),
    ("answers a repeated id twice", _variant(twice=True), ONE, "answered it 2 times"),
    ("answers a repeated id once but runs it", _runs_the_repeat, ONE, "ran refund for the repeat"),
    ("keeps the last answer of a repeated id", _last_answer_wins, ONE, "ran refund for the repeat"),
    ("sends repr(exc), as the SDK's tool runner does", _sdk_runner, INTERNALS, "repr(exc)"),
    ("sends str(exc) in a contract body", _message(lambda block, exc: str(exc)), INTERNALS, "db-3.internal"),
    ("names the exception", _message(lambda block, exc: f"The tool raised {type(exc).__name__}."), INTERNALS,
     "RuntimeError"),
    ("quotes the end of the exception", _message(lambda block, exc: str(exc).rsplit("; ", 1)[-1]), INTERNALS,
     "an API key"),
    ("passes on the ToolFailure's raw text", _passes_raw, INTERNALS, "NoResultFound"),
    ("echoes the unknown tool's name", _variant(answer=_echo_unknown), ECHO, "refund_everything_now"),
    ("echoes an argument in a crash", _message(lambda block, exc: f"Refund of {block['input'].get('invoice_id', 'it')} "
                                               "failed; nothing was done."), ECHO, "INV-31337"),
    ("sends a value as Python text", _rewrite(lambda res, block, code: {**res, "content": str(json.loads(
        res["content"]))} if code is None else res), CONTRACT, "json.dumps"),
    ("does not mark errors", _rewrite(lambda res, block, code: {k: v for k, v in res.items() if k != "is_error"}),
     CONTRACT, "is_error"),
    ("rewrites every error as upstream_unavailable", _rewrite(_all_upstream), CONTRACT, "Keep the tool's code"),
    ("rewords a refusal", _rewrite(lambda res, block, code: tool_error(
        block["id"], "not_found", "That did not work.", next=stop("Tell the customer the invoice was not found.")).block()
        if code == "not_found" else res), CONTRACT, "Pass the ToolFailure's message on"),
    ("calls a crash a bad argument", _message(lambda block, exc: "Check the arguments and call again.",
                                                   code="invalid_argument"), CONTRACT, "cannot fix"),
    ("writes three sentences", _rewrite(_three_sentences), CONTRACT, "sentences"),
    ("does not retry", _variant(attempts=1), RETRIES, "retry Transient"),
    ("keys on the arguments", _variant(key=lambda use_id, args, n: json.dumps(args, sort_keys=True)), RETRIES, "shared"),
    ("passes no key", _variant(key=lambda use_id, args, n: None), RETRIES, "without an idempotency key"),
    ("a new key per attempt", _variant(key=lambda use_id, args, n: f"{use_id}-{n}"), RETRIES, "different keys"),
    ("retries everything", _variant(retry_on=Exception), RETRIES, "was tried 3 times"),
    ("retries without end", _unbounded, RETRIES, "more than 50"),
    ("a breaker keyed on the message text", _keyed(lambda b, r: (b["name"], r["content"])), BREAKER, "did not fire"),
    ("a breaker without the code", _keyed(lambda b, r: (b["name"], json.dumps(b["input"], sort_keys=True))), BREAKER,
     "fired on message 2"),
    ("a breaker on unsorted JSON", _keyed(lambda b, r: (b["name"], json.dumps(b["input"]), _code(r))), BREAKER,
     "did not fire"),
    ("a breaker on the tool alone", _keyed(lambda b, r: (b["name"], _code(r))), BREAKER, "fired"),
    ("a breaker that counts successes", _keyed(lambda b, r: (b["name"], json.dumps(b["input"], sort_keys=True),
                                                             _code(r)), failures_only=False), BREAKER, "fired"),
    ("a breaker on Python equality (1 == True)", _keyed(lambda b, r: (b["name"], frozenset(b["input"].items()),
                                                                      _code(r))), BREAKER, "fired"),
    ("a breaker that forgets earlier messages", _forgets, BREAKER, "did not fire"),
    ("a breaker that remembers one message back", _last_message_only, BREAKER, "message 3 repeats"),
    ("a breaker that fires on the first failure", _first_failure, BREAKER, "no (tool, arguments, error code)"),
]


def _blank(content, tools, seen):
    ...  # your answer here


def _answers_nothing(content, tools, seen):
    return [], None


# --- 13.2 wrong answers -----------------------------------------------------------------------------------------

def _retry_with(wait=None, attempts=3, catch=(Transient, TimeoutError), cap=4.0, key=None, after_last=False,
                swallow=False):
    def fn(tool, args, k, sleep):
        for n in range(1, attempts + 1):
            try:
                return tool(args, key=key(k, n) if key else k)
            except catch as exc:
                after = getattr(exc, "retry_after", None)
                last = n == attempts or (cap is not None and after is not None and after > cap)
                if last and not after_last:
                    if swallow:
                        return None
                    raise
                sleep(wait(n, after) if wait else after if after is not None else 0.25 * 2 ** (n - 1))
                if last:
                    raise
    return fn


WRONG_13_2 = [
    ("never waits", _retry_with(wait=lambda n, after: 0), "waited [0]"),
    ("waits one second every time", _retry_with(wait=lambda n, after: 1.0), "waits [0.25]"),
    ("ignores Retry-After", _retry_with(wait=lambda n, after: 0.25 * 2 ** (n - 1)), "Retry-After: 2"),
    ("waits out any Retry-After", _retry_with(cap=None), "Retry-After: 30"),
    ("waits after the last attempt too", _retry_with(after_last=True), "stays down"),
    ("retries a refusal", _retry_with(catch=Exception), "refusal"),
    ("catches only Transient", _retry_with(catch=Transient), "two timeouts"),
    ("swallows the last failure", _retry_with(swallow=True), "should raise the Transient"),
    ("a new key per attempt", _retry_with(key=lambda k, n: f"{k}-{n}"), "keys"),
    ("four attempts", _retry_with(attempts=4), "tries 3 time(s)"),
    ("no retry at all", _retry_with(attempts=1), "one Transient"),
]


# --- the tests --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("answer", RIGHT_13_1, ids=["solution", "by_hand", "callable_object"])
def test_correct_dispatchers_pass(answer):
    fb = check("13.1", answer)
    assert fb.ok, fb.message


@pytest.mark.parametrize("what, answer, prop, fragment", WRONG_13_1, ids=[w[0] for w in WRONG_13_1])
def test_a_wrong_dispatcher_fails_naming_the_property_that_catches_it(what, answer, prop, fragment):
    fb = check("13.1", answer)
    assert not fb.ok and fb.message != BLANK
    assert f"“{prop}” fails on " in fb.message and fragment in fb.message, fb.message
    assert {v.prop: v.status for v in audit(answer)}[prop] == "fail"


def test_every_property_is_proven_on_at_least_two_wrong_answers():
    caught = {prop: sum(p == prop for _, _, p, _ in WRONG_13_1) for prop in PROPERTIES}
    assert all(n >= 2 for n in caught.values()), caught


@pytest.mark.parametrize("answer", [_blank, ...], ids=["unwritten", "ellipsis"])
def test_a_blank_reads_as_not_answered(answer):
    assert check("13.1", answer).message == BLANK
    assert check("13.2", answer).message == BLANK


@pytest.mark.parametrize("answer", [_blank, _answers_nothing], ids=["returns_none", "answers_nothing"])
def test_no_property_but_never_raises_passes_a_dispatcher_that_does_nothing(answer):
    statuses = {v.prop: v.status for v in audit(answer)}
    assert statuses.pop(NEVER) == "pass"
    assert "pass" not in statuses.values(), statuses


def test_the_feedback_gives_the_smallest_input_and_is_the_same_every_time():
    wrong = dict((w, a) for w, a, _, _ in WRONG_13_1)["drops the result when a tool raises"]
    first, again = check("13.1", wrong).message, check("13.1", wrong).message
    assert first == again
    assert first.count("[toolu_") == 1 and "refund(" in first, first  # one block: the crash, nothing else


def test_a_dispatcher_with_two_arguments_is_told_about_seen():
    fb = check("13.1", lambda content, tools: ([], None))
    assert not fb.ok and "(content, tools, seen)" in fb.message


def test_something_that_is_not_a_function_is_told_what_to_pass():
    assert "dispatch itself" in check("13.1", [1, 2]).message
    assert "retry itself" in check("13.2", "retry").message


@pytest.mark.parametrize("answer", RIGHT_13_2, ids=["solution", "recursive", "listed_waits"])
def test_correct_retries_pass(answer):
    fb = check("13.2", answer)
    assert fb.ok, fb.message


@pytest.mark.parametrize("what, answer, fragment", WRONG_13_2, ids=[w[0] for w in WRONG_13_2])
def test_a_wrong_retry_fails_and_says_on_which_case(what, answer, fragment):
    fb = check("13.2", answer)
    assert not fb.ok and fb.message != BLANK
    assert fragment in fb.message, fb.message


def test_answerable_keeps_each_ids_first_block_whatever_value_the_id_is():
    first = {"type": "tool_use", "id": ["x"], "name": "a", "input": {}}
    content = [first, {"type": "tool_use", "id": ["x"], "name": "b", "input": {}},
               {"type": "tool_use", "id": "toolu_1", "name": "c", "input": {}}, {"type": "text", "text": "hi"}]
    assert [b["name"] for b in answerable(content)] == ["a", "c"]  # a list id once raised TypeError
    assert answerable(content)[0] is first
