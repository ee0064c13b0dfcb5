"""The contract's rubric: one error answer judged rule by rule, each verdict with its reason, and the scores.

Pure functions, no I/O. A bare text is enough (a transcript's error, read heuristically); the is_error flag, the
call's arguments, the tool's input schema and a canary make the reading sharper. Rules taught in chapters 03
(structure, code, retryable, next), 07 (length) and 08 (echo, internals); `atlas-kit audit` (chapter 10) uses it.

Scores: an answer scores (rules passed) / (rules judged), "n/a" verdicts left out; a tool scores 100 × the mean of
its answers' scores; a server scores the mean of its tools' scores, each tool counting once.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Iterable, Literal, Mapping, get_args

from .errors import ALLOWED_BRANCHES, RETRYABLE, Branch, ErrorCode
from .echo import ECHO_MIN_CHARS, ECHO_RUN_CHARS, callers_own, find_echo, looked_for, values
from .naming import mentions_argument, named_arguments
from ..types.tokens import estimate_tokens
from .redaction import looks_secret, redact
from ..types.exceptions import AtlasKitTypeError

__all__ = ["ECHO_MIN_CHARS", "ECHO_RUN_CHARS", "MAX_TOKENS", "RULES", "Judgement", "Rule", "Status", "Structure",
           "Verdict", "judge", "server_score", "tool_score"]

Rule = Literal["is_error", "structure", "code", "retryable", "next", "echo", "internals", "length"]
RULES: tuple[Rule, ...] = get_args(Rule)
Status = Literal["pass", "fail", "n/a"]
Structure = Literal["contract", "article", "json", "text"]

MAX_TOKENS = 80  # an answer up to this many (estimated) tokens is short enough
_ECHO_SCAN = 100_000  # characters of the answer searched for an echo

_CODES = frozenset(c.value for c in ErrorCode) | {"permission_denied", "rate_limited"}  # ours and the article's
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{1,63}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}")  # what a reason may quote: an argument's name, one letter too
_RETRY_FIELDS = ("retryable", "retriable", "is_retryable", "isRetryable")
_RETRY_WORDS = re.compile(
    r"(?i:\b(?:do not|don't|never) (?:retry|try again|repeat|call (?:it|this|the tool|\w+) again)\b|\bretrying\b|"
    r"\b(?:can ?not|can't|will not|won't) (?:succeed|be retried|work if)\b|\bnot retr[iy]able\b|\bretr[iy]able\b|"
    r"\bpermanent(?:ly)?\b|\btransient\b|\bretry[ -]after\b|\bretry (?:in|later)\b|\btry again\b(?: later| in \d+\s*\w+)?|"
    r"\bcall (?:it |this |the tool )?again\b)")
_TRY_AGAIN = re.compile(r"(?i:\btry again\b)")  # alone, the identical call: the generic wrapper's blanket advice
_FORM = re.compile(r"(?i:\b(?:must|should|expected|expects|required|one of|at (?:most|least)|format|such as|like|"
                   r"between|no (?:more|longer) than|valid)\b)|\bISO\b")
_BRANCH_WORDS = re.compile(
    r"(?i:\b(?:call|use) (?:the )?[`'\"]?[a-z_][a-z0-9_]*[`'\"]?(?: tool)? instead\b|\binstead,? (?:call|use)\b|"
    r"\bswitch to\b|\b(?:do not|don't) (?:call|retry|try)\b|\btell the (?:user|customer)\b|"
    r"\bask the (?:user|customer)\b|\b(?:stop|escalate|hand (?:it|this) to a person)\b)")


@dataclass(frozen=True)
class Verdict:
    """One rule's verdict on one answer: pass, fail, or n/a (nothing to judge), and why in one sentence."""

    rule: Rule
    status: Status
    reason: str


@dataclass(frozen=True)
class Judgement:
    """Every rule's verdict on one answer, what shape it has, and its length in estimated tokens.

    `tokens` is also what the answer costs on every later turn: a transcript re-sends every earlier result.
    """

    verdicts: tuple[Verdict, ...]
    structure: Structure
    tokens: int

    def verdict(self, rule: Rule) -> Verdict:
        return next(v for v in self.verdicts if v.rule == rule)

    @property
    def failed(self) -> tuple[Rule, ...]:
        return tuple(v.rule for v in self.verdicts if v.status == "fail")

    @property
    def score(self) -> float | None:
        """Rules passed over rules judged (n/a left out), from 0 to 1; None when no rule could be judged."""
        judged = [v for v in self.verdicts if v.status != "n/a"]
        return sum(v.status == "pass" for v in judged) / len(judged) if judged else None


def tool_score(judgements: Iterable[Judgement]) -> float | None:
    """100 × the mean of the answers' scores (answers with no judged rule left out); None with no answer."""
    scores = [s for j in judgements if (s := j.score) is not None]
    return 100 * sum(scores) / len(scores) if scores else None


def server_score(tool_scores: Iterable[float | None]) -> float | None:
    """The mean of the tools' scores, each tool counting once whatever its number of answers; None with none."""
    scores = [s for s in tool_scores if s is not None]
    return sum(scores) / len(scores) if scores else None


def judge(text: str, *, is_error: bool | None = None, arguments: object = None,
          schema: Mapping[str, object] | None = None, canary: str | None = None,
          short_echoes: bool = False) -> Judgement:
    """Judge one answer against the contract's rules.

    text: what the model reads. is_error: the flag the answer came with (None: not known). arguments: the call's
    arguments (None: not known). schema: the tool's input schema (None: not known). canary: a marker planted in the
    arguments, whose return proves an echo. short_echoes: look for every value of ECHO_MIN_CHARS or more, not only
    runs of ECHO_RUN_CHARS: right where every value sent is known to be unvalidated (the audit's failing calls, whose
    values it made up); elsewhere a short value may be an id the tool found, which a reply may name (chapter 08).
    An answer returned as a success is judged on is_error alone.
    """
    if not isinstance(text, str):
        raise AtlasKitTypeError(f"judge() takes the answer's text, a str; got {type(text).__name__}. Join its text blocks first.")
    structure, body = _parse(text)
    tokens = estimate_tokens(text)
    if is_error is False:
        skipped = [Verdict(r, "n/a", "returned as a success, so there is no error to judge") for r in RULES[1:]]
        return Judgement((_is_error(is_error), *skipped), structure, tokens)
    found = schema.get("properties") if isinstance(schema, Mapping) else None
    props = tuple(str(p) for p in found) if isinstance(found, Mapping) else ()  # the tool's argument names
    empty = Verdict("echo", "n/a", "the answer is empty: nothing here to judge") if not text.strip() else None
    verdicts = (_is_error(is_error), _structure(structure, body), _code(structure, body, text),  # an empty answer:
                _retryable(structure, body, text), _next(structure, body, text, props),  # no echo, internals or
                empty or _echo(text, body, arguments, schema, canary, short_echoes),  # length there to pass
                replace(empty, rule="internals") if empty else _internals(text, arguments, schema),
                replace(empty, rule="length") if empty else _length(tokens))
    return Judgement(verdicts, structure, tokens)


# --- reading the answer --------------------------------------------------------------------------

def _parse(text: str) -> tuple[Structure, dict[str, object]]:
    try:
        body = json.loads(text)
    except ValueError:
        return "text", {}
    if not isinstance(body, dict):
        return "text", {}
    inner = body.get("error")
    if isinstance(inner, dict) and isinstance(inner.get("message"), str):  # {"error": {"code": ..., "message": ...}}
        body = inner
    if isinstance(body.get("error"), str) and isinstance(body.get("message"), str):
        return "contract", body
    if isinstance(body.get("code"), str) and isinstance(body.get("message"), str):
        return "article", body
    return "json", body


def _shown(value: object) -> str:
    """A value the answer holds, as a reason may quote it: an identifier, else a description of it."""
    return repr(value) if isinstance(value, str) and _NAME.fullmatch(value) and not looks_secret(value) \
        else f"a {type(value).__name__}"


def _message(structure: Structure, body: Mapping[str, object], text: str) -> str:
    """The words a reader acts on: a body's message and fix, or the whole text."""
    if structure in ("contract", "article"):
        nxt = body.get("next")
        say = nxt.get("say") if isinstance(nxt, dict) else None
        return " ".join(str(x) for x in (body.get("message"), body.get("suggested_fix"), say) if isinstance(x, str))
    return text


# --- the rules -----------------------------------------------------------------------------------

def _is_error(flag: bool | None) -> Verdict:
    if flag is None:
        return Verdict("is_error", "n/a", "whether the answer was flagged as an error is not known")
    if flag:
        return Verdict("is_error", "pass", "flagged as an error (isError): client and model can tell it from a result")
    return Verdict("is_error", "fail", "returned as a success: the model reads it as the tool's answer, not a failure")


def _structure(structure: Structure, body: Mapping[str, object]) -> Verdict:
    if structure == "contract":
        return Verdict("structure", "pass", "a contract body: error, message, retryable and next")
    if structure == "article":
        return Verdict("structure", "pass", "the article's shape: code, message, retryable and suggested_fix")
    if structure == "json":
        keys = ", ".join(sorted(k for k in body if _IDENT.fullmatch(k))[:6]) or "none a reader can name"
        return Verdict("structure", "fail", f"JSON, but neither a contract body nor the article's shape (keys: {keys})")
    return Verdict("structure", "fail", "plain text: a program can read no code, flag or branch from it")


def _code(structure: Structure, body: Mapping[str, object], text: str) -> Verdict:
    field = "error" if structure == "contract" else "code"
    value = body.get(field) if structure != "text" else None
    if structure == "json":
        value = next((body[k] for k in ("code", "error_code", "errorCode", "type", "error") if k in body), None)
    if isinstance(value, str) and _IDENT.fullmatch(value):
        where = "one of the contract's five codes" if value in {c.value for c in ErrorCode} else \
            "one of the article's codes" if value in _CODES else "machine-readable, though in neither list"
        return Verdict("code", "pass", f"code {_shown(value)}: {where}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return Verdict("code", "fail", f"a numeric code ({value}) says nothing a model can act on")
    first = re.match(r"\s*([a-z_]+)\b", text)
    if structure == "text" and first and first.group(1) in _CODES:
        return Verdict("code", "pass", f"starts with the code {first.group(1)!r}")
    return Verdict("code", "fail", "no stable code a program can match on (an exception class or a status line is "
                                   "not one)")


def _retryable(structure: Structure, body: Mapping[str, object], text: str) -> Verdict:
    field = next((f for f in _RETRY_FIELDS if f in body), None)
    if field is not None:
        value = body[field]
        if not isinstance(value, bool):
            return Verdict("retryable", "fail", f"{field} is a {type(value).__name__}, not true or false")
        code = body.get("error") if structure == "contract" else None
        known = next((c for c in ErrorCode if c.value == code), None)
        if known is not None and RETRYABLE[known] != value:
            return Verdict("retryable", "fail", f"{field}: {str(value).lower()} contradicts {known.value}, which the "
                                                f"contract fixes as {str(RETRYABLE[known]).lower()}")
        return Verdict("retryable", "pass", f"{field}: {str(value).lower()}, a field a program can read")
    words = _RETRY_WORDS.search(_message(structure, body, text))
    if words:
        return Verdict("retryable", "pass", f"says in words whether to call again ({words.group(0).lower()!r}), "
                                            "though as no field a program can read")
    return Verdict("retryable", "fail", "does not say whether calling again can succeed")


def _next(structure: Structure, body: Mapping[str, object], text: str, props: tuple[str, ...]) -> Verdict:
    nxt = body.get("next") if structure == "contract" else None
    if isinstance(nxt, dict):
        return _contract_next(nxt, body.get("error"), props)
    if structure == "article" and isinstance(body.get("suggested_fix"), str) and str(body["suggested_fix"]).strip():
        return Verdict("next", "pass", "suggested_fix says what to change")
    words = _message(structure, body, text)
    named = [p for p in props if mentions_argument(words, p)] if props else named_arguments(words)
    if named and _FORM.search(words):
        return Verdict("next", "pass", f"names the argument {_shown(named[0])} and the form it must take")
    if _BRANCH_WORDS.search(words):
        return Verdict("next", "pass", "names what to do next in words (another tool, or to stop and tell the user)")
    if _TRY_AGAIN.search(words):
        return Verdict("next", "fail", "only 'try again': the identical call, which is the harness's branch "
                                       "(retry_unchanged); it names no argument to change and no other tool")
    return Verdict("next", "fail", "names no branch (another tool, or stop) and no argument to change")


def _contract_next(nxt: Mapping[str, object], code: object, props: tuple[str, ...]) -> Verdict:
    branch = next((b for b in Branch if b.value == nxt.get("branch")), None)
    if branch is None:
        return Verdict("next", "fail", f"next.branch {_shown(nxt.get('branch'))} is not one of the four branches")
    if branch is Branch.RETRY_UNCHANGED:
        return Verdict("next", "fail", "next selects retry_unchanged, the harness's branch: no error that reaches "
                                       "the model should")
    known = next((c for c in ErrorCode if c.value == code), None)
    if known is not None and branch not in ALLOWED_BRANCHES[known]:
        return Verdict("next", "fail", f"next selects {branch.value}, which contradicts {known.value}")
    if branch is Branch.SWITCH_TOOL and not isinstance(nxt.get("tool"), str):
        return Verdict("next", "fail", "next selects switch_tool but names no tool")
    argument = nxt.get("argument")
    if props and argument is not None and argument not in props:
        return Verdict("next", "fail", f"next.argument {_shown(argument)} is not an argument of this tool "
                                       f"(it takes: {', '.join(props)})")
    target = f" to {_shown(nxt['tool'])}" if branch is Branch.SWITCH_TOOL else \
        f" with {_shown(argument)} changed" if isinstance(argument, str) else ""
    return Verdict("next", "pass", f"next: {branch.value}{target}")


def _echo(text: str, body: Mapping[str, object], arguments: object, schema: Mapping[str, object] | None,
          canary: str | None, short: bool) -> Verdict:
    strings = (v for _, v in values(dict(body)) if isinstance(v, str))  # a JSON body's strings, unescaped
    haystack = "\n".join([text[:_ECHO_SCAN], *strings])[:2 * _ECHO_SCAN]
    if canary and canary.lower() in haystack.lower():
        return Verdict("echo", "fail", "the canary planted in the arguments came back: whatever an argument says "
                                       "reaches the model as the tool's own words")
    found = find_echo(haystack, arguments, json.dumps(schema, ensure_ascii=False) if schema else "", short=short)
    if found is not None and found.how == "run":  # the tool's own words (its schema) are no echo: find_echo
        return Verdict("echo", "fail", f"{ECHO_RUN_CHARS} or more characters of argument {_shown(found.argument)} "
                                       "came back verbatim")  # leaves them out
    if found is not None:
        return Verdict("echo", "fail", f"argument {_shown(found.argument)} came back: {found.how}")
    least = ECHO_MIN_CHARS if short else ECHO_RUN_CHARS
    if not looked_for(arguments, short=short) and not canary:
        return Verdict("echo", "n/a", f"nothing to look for: no canary, no argument of {least}+ characters")
    if short:
        return Verdict("echo", "pass", f"no canary, and no argument value came back (whole, as a run of "
                                       f"{ECHO_RUN_CHARS} characters, or in a validation dump)")
    return Verdict("echo", "pass", f"no canary and no run of {ECHO_RUN_CHARS} characters of any argument came back")


def _internals(text: str, arguments: object, schema: Mapping[str, object] | None) -> Verdict:
    found = callers_own(text, arguments, schema)
    if not found and not looks_secret(text):
        return Verdict("internals", "pass", "no traceback, path, host, SQL, exception class, library dump, URL or key")
    what = [f"{f.kind} ({redact(f.excerpt)!r})" if i == 0 else f.kind for i, f in enumerate(found)] or ["a key"]
    return Verdict("internals", "fail", f"holds what belongs in the trace: {', '.join(what)}")


def _length(tokens: int) -> Verdict:
    if tokens <= MAX_TOKENS:
        return Verdict("length", "pass", f"about {tokens} tokens (estimated, 4 characters a token), re-sent each turn")
    return Verdict("length", "fail", f"about {tokens} tokens (estimated), over {MAX_TOKENS}: every later request "
                                     "re-sends all of them")
