"""Checks for chapter 07's exercises: a leaner error body that says the same thing (07.1), and one
failure written for three audiences (07.2), both over Atlas's catalogue failures; 07.2 also judges what the
customer's words may not say.
"""
from __future__ import annotations

import json
import re
from typing import Callable

from ...atlas.audience import AUDIENCE
from ...atlas.tools import TOOL_NAMES, build_tools
from ...atlas.faults import FaultSchedule
from ...atlas.data import World
from ...atlas.session import atlas_session
from ...atlas.grade import grade
from ...atlas.styles import CASES
from ...dispatch.dispatcher import Dispatcher
from ...dispatch.styles import Failure
from ...dispatch.transient import RetryPolicy
from ...types.tokens import estimate_tokens
from ...types.sets import JSONObject
from ...types.walk import result_text
from ._registry import Compare, Finding, exercise
from ._shared import _body, _run, _use
from ._text import blames, contradicts, contradicts_itself, internals
from ._claims import claims_success


def _catalogue_failures(names: tuple[str, ...]) -> dict[str, Failure]:
    """The named Atlas catalogue failures, made once each through the real dispatcher (as `catalogue` does)."""
    out = {}
    for case in CASES:
        if case.name in names:
            world = World(0)
            tools = FaultSchedule(case.faults, seed=0).wrap(build_tools(world, tenant=case.customer))
            dispatcher = Dispatcher(tools, retry=RetryPolicy(sleep=world.advance), run_id="check", audience=AUDIENCE)
            done = dispatcher.dispatch([_use("toolu_01", case.tool, case.input)])
            out[case.name] = done.failures[0]
    return out


_ALL_CASES = ("malformed account id", "amount of the wrong type", "unknown account", "another customer's account",
              "refund above the ceiling", "refund more than was paid", "refund outside the window",
              "invoice id that does not exist", "warehouse query too broad", "date that does not exist",
              "deleted order", "shipped order", "quantity above the cap", "warehouse timeout",
              "rate limited for too long", "refund service outage")


def _style_block(style: Callable[[Failure], object], failure: Failure, case: str) -> tuple[str | None, str | None]:
    try:
        block = style(failure)
    except Exception as exc:
        return None, f"For '{case}' your style raised {type(exc).__name__}; it must return a tool_result block."
    if not isinstance(block, dict) or block.get("type") != "tool_result" or not isinstance(block.get("content"), str):
        return None, (f"For '{case}' your style should return a tool_result block: a dict with type, tool_use_id, "
                      "is_error and a str content.")
    if block.get("tool_use_id") != failure.error.tool_use_id or block.get("is_error") is not True:
        return None, f"For '{case}' keep the block's tool_use_id and set is_error to True; the API needs both."
    return block["content"], None


@exercise("07.1", "A leaner error body that says the same thing",
          right="Every failure reads as the same branch as the contract, leaks nothing, says nothing its branch "
                "contradicts, costs fewer tokens, and the five tickets still end correctly.",
          hints=("Start from failure.error.body(): what in it does the reader need to choose a branch?",
                 "Where next names a tool or an argument, those fields decide and say mostly repeats them; on a stop, "
                 "say is what to tell the customer (and what to offer), which message may not. "
                 "json.dumps(..., separators=(\",\", \":\")) drops the spaces.",
                 "Return {\"type\": \"tool_result\", \"tool_use_id\": failure.error.tool_use_id, \"is_error\": True, "
                 "\"content\": <your JSON>}."),
          judges=("structure", "forbidden", "contradiction"))
def _lean(style: object) -> str | Finding | None:
    """Structure: a block per failure that selects the contract's branch, keeps code and message, costs a tenth less;
    five tickets still correct. Forbidden: the library's raw text. Contradiction: the body's words (a say you wrote)
    claiming success or inviting a retry the branch forbids."""
    if not callable(style):
        return "Pass your style function itself: it takes a Failure and returns a tool_result block."
    failures = _catalogue_failures(_ALL_CASES)
    spent = contract = 0
    for case, failure in failures.items():
        text, problem = _style_block(style, failure, case)
        if problem or text is None:
            return problem or f"For '{case}' your style returned no text for the model to read."
        body = result_text(failure.error.block()["content"])
        if failure.raw.strip() and failure.raw != failure.error.message and failure.raw in text:
            return Finding("forbidden", f"for '{case}' your text passes on the library's raw text; that is the raw "
                                        "style, not a lean contract.")
        theirs, ours = _selects(text), _selects(body) or ("stop", None, None)
        if theirs is None:
            return (f"For '{case}' the text does not parse as a contract body (JSON with error and a boolean "
                    "retryable), so a reader is back to guessing from its words.")
        if theirs != ours:
            return (f"For '{case}' your text selects {_branch(theirs)} where the contract selects {_branch(ours)}; "
                    "keep what decides the branch.")
        parsed = json.loads(text)
        if parsed.get("error") != failure.error.code.value or parsed.get("message") != failure.error.message:
            return f"For '{case}' keep the code and the message as the contract has them; they are what the model relays."
        if (said := _lean_words(parsed, failure)) is not None:
            return Finding("contradiction", f"for '{case}' your body {said}")
        spent, contract = spent + estimate_tokens(text), contract + estimate_tokens(body)
    if spent > 0.9 * contract:
        return (f"Over the sixteen catalogue failures your bodies cost {spent} estimated tokens against the "
                f"contract's {contract}; find at least a tenth to cut.")
    for name in ("T04", "T05", "T19", "T21", "T22"):
        verdict = grade(_run(atlas_session(name, style=style, seed=0)))
        if not verdict.correct:
            return (f"With your style {name} ends wrong ({verdict.reasons[0]}); the contract gets it right, so "
                    "something the reader needs was dropped.")
    return None


def _lean_words(body: JSONObject, failure: Failure) -> str | None:
    """What the body's words (its message and any say) contradict: a success claimed, a retry where it stops."""
    nxt = body.get("next") if isinstance(body.get("next"), dict) else {}
    say = nxt.get("say") if isinstance(nxt, dict) else None
    texts = [str(body.get("message") or "")] + ([say] if isinstance(say, str) else [])
    return contradicts(texts, code=failure.error.code, nxt=failure.error.next)


def _selects(text: str) -> tuple[str, str | None, str | None] | None:
    """(branch, tool, argument) that a contract body selects, read from its fields; None when it is no contract body."""
    try:
        body = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(body, dict) or "error" not in body or not isinstance(body.get("retryable"), bool):
        return None
    nxt: JSONObject = body["next"] if isinstance(body.get("next"), dict) else {}
    branch = nxt.get("branch") or ("retry_changed" if body["retryable"] else "stop")  # no next: retryable decides
    return str(branch), nxt.get("tool"), nxt.get("argument")


def _branch(selected: tuple[str, str | None, str | None]) -> str:
    branch, tool, argument = selected
    return f"{branch}{f' to {tool}' if tool else f' on {argument}' if argument else ''}"


_AUDIENCE_CASES = ("warehouse timeout", "refund above the ceiling", "another customer's account", "deleted order",
                   "refund service outage", "unknown account", "quantity above the cap")
# The system's own words, which a customer should never read (on top of _text.internals: names, classes, hosts).
_JARGON = re.compile(r"\btraceback\b|\bstack\s*trace\b|\bhttps?\b|\bsql\b|[{}<>]|\bretryable\b|\bargument\b|"
                     r"\bstatus\s+code\b|\b(?:error|status|code|http)\s*[45]\d\d\b|\bnull\b|"
                     r"\bexception\s+(?:occurred|was\s+(?:raised|thrown)|raised|thrown)\b", re.IGNORECASE)


@exercise("07.2", "One failure, three audiences",
          right="The trace keeps every detail, the model reads the contract body and nothing internal, and "
                "the customer gets short, different words per kind of failure, with nothing internal, no blame and "
                "no success claimed.",
          hints=("The trace can simply join failure.raw and failure.error.detail; the model's text is the "
                 "contract's block content.",
                 "The customer never sees a tool name, an argument name or a code: write one plain sentence per "
                 "error code (a dict keyed by failure.error.code.value works).",
                 "Read each sentence aloud as if to a customer who has never heard of query_warehouse or "
                 "not_permitted: does it say what happened, without claiming anything was done?"),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether each customer sentence is plain and specific",
                          "That goes beyond a limit I can approve myself, so it needs a colleague or cannot be done.",
                          ("Does each sentence tell the customer what happened to their request, in their words?",
                           "Does it say what happens next (a colleague, a number to check, a later try)?")))
def _audiences(split: object) -> str | Finding | None:
    """Structure: the three texts, the trace's detail, the contract body, the length, different words per code.
    Forbidden: names, internals or jargon in the customer's text, blame. Contradiction: a success claimed to the
    customer after a failure, or words that contradict themselves. Not judged: whether the words are plain and
    specific."""
    if not callable(split):
        return "Pass your function audiences itself: it takes a Failure and returns a dict with trace, model and customer."
    said: dict[str, set[str]] = {}
    for case, failure in _catalogue_failures(_AUDIENCE_CASES).items():
        try:
            texts = split(failure)
        except Exception as exc:
            return f"For '{case}' your function raised {type(exc).__name__}; run it on that failure yourself."
        if not isinstance(texts, dict) or not all(isinstance(texts.get(k), str) for k in ("trace", "model", "customer")):
            return "Return a dict with three str values under the keys \"trace\", \"model\" and \"customer\"."
        trace, model, customer = texts["trace"], texts["model"], texts["customer"]
        problem = _three_texts(case, failure, trace, model) or _customer(case, failure, customer)
        if problem is not None:
            return problem
        said.setdefault(failure.error.code.value, set()).add(customer.strip())
    if len({w for ws in said.values() for w in ws}) < len(said):
        return ("Your customer text is the same for different kinds of failure; a refund that needs approval and "
                "an account that is not theirs need different words.")
    return None


def _three_texts(case: str, failure: Failure, trace: str, model: str) -> str | None:
    """The trace keeps the raw text and the detail; the model reads the contract body and neither of them."""
    if failure.raw not in trace or (failure.error.detail and failure.error.detail not in trace):
        return (f"The trace text for '{case}' drops what an engineer needs: keep the raw text and the error's "
                "detail in it.")
    body = _body({"content": model})
    if not isinstance(body, dict) or body.get("error") != failure.error.code.value or "retryable" not in body:
        return (f"The model's text for '{case}' should be the contract body (JSON with error, message, retryable "
                "and next), the one thing the model can act on reliably.")
    if failure.raw in model or (failure.error.detail and failure.error.detail in model):
        return f"The model's text for '{case}' carries the trace's detail; that belongs to the engineer."
    return None


def _customer(case: str, failure: Failure, customer: str) -> str | Finding | None:
    """The customer's words: present, plain, no blame, no success claimed, one or two short sentences."""
    words = customer.strip()
    if not words:
        return f"The customer's text for '{case}' is empty; they need to hear what happened."
    named = [t for t in TOOL_NAMES if t in words]
    inside = named[0] if named else internals(words) or (m.group(0) if (m := _JARGON.search(words)) else None)
    if inside:
        return Finding("forbidden", f"the customer's text for '{case}' contains '{inside}', which is the system "
                                    "talking, not a person; use plain words.")
    if (fault := blames(words)) is not None:
        return Finding("forbidden", f"the customer's text for '{case}' blames them ({fault!r}); say what to check, "
                                    "not whose fault it is.")
    if (done := claims_success(words)) is not None:
        return Finding("contradiction", f"the customer's text for '{case}' says {done!r}, but the call failed "
                                        f"({failure.error.code.value}): never tell a customer it was done.")
    if (said := contradicts_itself((words,), audience="customer")) is not None:
        return Finding("contradiction", f"the customer's text for '{case}' {said}")
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", words) if s]
    if len(sentences) > 2 or len(words) > 240:
        return f"The customer's text for '{case}' is long; one or two short sentences are enough."
    return None
