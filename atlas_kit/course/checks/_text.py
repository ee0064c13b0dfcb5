"""What a check may decide in a learner's words: the forbidden, and contradictions with the structure or within.

Every rule here only rejects, and each names the words it found: an echo of the input, internals, blame of the
customer; what the claim reader (_claims.py) finds the words instruct or assert set against the structure (a retry
where the branch stops, the same call where it must change, 'pointless' where it is retryable, a silence where stop
tells the customer, a success claimed after a failure) or against themselves (stop and retry, retry and 'pointless',
keep silent and tell); a tool named that `next` does not name. None asks for a phrase; an idea these rules cannot
decide is shown to the learner to judge (Exercise.compare). Chapters 01-08, 13-16.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from ...contract.errors import _INTERNALS, RETRYABLE, Branch, ErrorCode, Next  # switch to the shared patterns module when it lands
from ...contract.redaction import looks_secret
from ._claims import Reading, claims_complete, claims_failure, claims_success, invites_retry, read, unnegated
from ._registry import Finding

__all__ = ["blames", "claims_complete", "claims_failure", "claims_success", "contradicts", "contradicts_itself",
           "echoes", "internals", "invites_retry", "judge_failure", "names_other_tool"]

# --- the forbidden ---------------------------------------------------------------------------------------------

_UPPER_SNAKE = re.compile(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b")
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b")
_DOTTED = re.compile(r"\b[a-z_][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+\b")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


def internals(text: str, *, raw: str = "", names: Iterable[str] = ()) -> str | None:
    """What in `text` is for the trace: errors.py's internals and keys, a constant, a class or dotted name, an
    identifier that is not one of `names` (the arguments and tools the reader may be told), or a run of `raw`.

    raw: a library's text whose runs of words are its jargon (a database driver's message). Plain-English raw text
    shares pairs with good messages ('refund window'), so leave it out there.
    """
    allowed = set(names)
    found = _INTERNALS.search(text)
    if found:
        return found.group(0)[:60]
    if looks_secret(text):
        return "a key"
    for pattern in (_UPPER_SNAKE, _CAMEL, _DOTTED):
        if (found := pattern.search(text)) is not None:
            return found.group(0)
    unknown = [m.group(0) for m in _SNAKE.finditer(text) if m.group(0) not in allowed]
    if unknown:
        return unknown[0]
    return _runs_of(raw, text)


_WORD = re.compile(r"[A-Za-z]+(?:_[A-Za-z]+)*")
_PLAIN = {"with", "that", "this", "from", "than", "when", "what", "which", "have", "been", "were", "does", "more", "into",
          "over", "only", "same", "then", "there", "their", "your", "will", "would", "could", "should", "after"}


def _runs_of(raw: str, text: str) -> str | None:
    """Three words of `raw` in a row, or two long words that are not plain English glue ('statement timeout')."""
    words = [w.lower() for w in _WORD.findall(raw)]  # an identifier is one word: query_warehouse is not "query warehouse"
    said = " " + " ".join(_WORD.findall(text)).lower() + " "
    runs = [words[i:i + 3] for i in range(len(words) - 2)]
    runs += [pair for pair in (words[i:i + 2] for i in range(len(words) - 1))
             if all(len(w) >= 4 and w not in _PLAIN for w in pair)]
    return next((" ".join(run) for run in runs if f" {' '.join(run)} " in said), None)


def echoes(text: str, values: Iterable[str]) -> str | None:
    """The first value the caller sent that `text` repeats (letter case aside)."""
    low = text.casefold()
    return next((v for v in values if v and v.casefold() in low), None)


_BLAME = re.compile(
    r"\b(?:your|their|the\s+customer's|the\s+user's|customer|user)\s+(?:own\s+)?(?:fault|mistake|error)\b|"
    r"\b(?:you|they|the\s+customer|the\s+user)\s+(?:have\s+|has\s+)?(?:made|make)\s+(?:a\s+)?(?:mistake|error)\b|"
    r"\b(?:you|they|the\s+customer|the\s+user)\s+(?:typed|entered|sent|gave|wrote|got)\s+(?:it|this|that|the\s+\w+)\s+"
    r"(?:wrong|incorrectly)\b|"
    r"\b(?:you|they|the\s+customer|the\s+user)\s+(?:typed|entered|sent|gave|wrote|chose|used)\s+(?:us\s+)?(?:a|an|the)\s+"
    r"(?:wrong|bad|incorrect|invalid)\b|\bcareless\w*|\bstupid\b|\bblame\w*", re.IGNORECASE)


def blames(text: str) -> str | None:
    """Words that put the fault on the customer: 'their mistake', 'the customer typed it wrong'."""
    return unnegated(_BLAME, text)


# --- contradictions ------------------------------------------------------------------------------------------

def names_other_tool(text: str, tools: Iterable[str], allowed: Iterable[str]) -> str | None:
    """A tool of `tools` that `text` names, not negated, other than the `allowed` ones (next's tool, the failed one)."""
    others = sorted(set(tools) - set(allowed))
    if not others:
        return None
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, others)) + r")\b")
    return unnegated(pattern, text)


# --- one judgement for the words of a failure --------------------------------------------------------------------

def judge_failure(texts: Sequence[str], *, code: ErrorCode, next: Next | None, tools: Iterable[str] = (),
                  failed: str | None = None, echo: Iterable[str] = (), raw: str = "", names: Iterable[str] = (),
                  where: str = "the text") -> Finding | None:
    """The first forbidden or contradicting words in the texts of one failure (its message, then next.say).

    tools: every tool the reader can call; failed: the one that failed; echo: values the caller sent;
    raw: what the library said; names: identifiers the reader may be told (arguments, tools).
    """
    tools = tuple(tools)
    allowed = {t for t in (failed, next.tool if next else None) if t}
    for text in texts:
        if (leak := internals(text, raw=raw, names={*names, *tools, *allowed})) is not None:
            return Finding("forbidden", f"{where} carries {leak!r}, which is for the trace: say it in plain words and "
                                        "put internals in detail=.")
        if (sent := echoes(text, echo)) is not None:
            return Finding("forbidden", f"{where} repeats {sent!r}, which the caller sent: name the argument instead of "
                                        "echoing its value (chapter 08).")
        if (fault := blames(text)) is not None:
            return Finding("forbidden", f"{where} blames the customer ({fault!r}); say what to check or change, not whose "
                                        "fault it is.")
    if (said := contradicts(texts, code=code, nxt=next)) is not None:
        return Finding("contradiction", f"{where} {said}")
    for text in texts:
        if (other := names_other_tool(text, tools, allowed)) is not None:
            said = f"next names {next.tool}" if next and next.tool else "next names no tool to call"
            return Finding("contradiction", f"{where} names {other}, but {said}: name in the words the call next "
                                            "selects, or none.")
    return None


def contradicts(texts: Sequence[str], *, code: ErrorCode, nxt: Next | None,
                audience: Literal["model", "customer"] = "model") -> str | None:
    """How the texts of one failure (read together: a silence in the message and a tell in say contradict) claim a
    success, contradict the structure (the branch, whether the code is retryable) or contradict themselves; None
    when they do not. The words found are quoted."""
    changes = tuple(x for x in (nxt.tool, nxt.argument) if x) if nxt else ()
    readings = [r for text in texts for r in read(text, audience=audience, changes=changes)]
    done = next((r for r in readings if r.act == "done"), None)
    if done is not None:
        return (f"says {done.words!r}, but the call failed ({code.value}): never let a reader believe the action was "
                "done.")
    return _against_structure(readings, code=code, nxt=nxt) or _against_itself(readings)


def contradicts_itself(texts: Sequence[str], *, audience: Literal["model", "customer"] = "model") -> str | None:
    """How texts that answer no failure contradict themselves (stop and retry, retry and 'pointless', keep silent
    and tell), with the words found quoted; None when they do not."""
    return _against_itself([r for text in texts for r in read(text, audience=audience)])


def _against_structure(readings: list[Reading], *, code: ErrorCode, nxt: Next | None) -> str | None:
    """A retry where the branch stops, the same call where it must change, 'pointless' where it is retryable, or a
    silence where stop ends by telling the customer."""
    stops = (nxt is None and not RETRYABLE[code]) or (nxt is not None and nxt.branch is Branch.STOP)
    why = "next is stop" if nxt is not None and stops else f"{code.value} is not retryable"
    retries = [r for r in readings if r.act == "retry" and not r.customer]
    if stops and retries:
        return (f"invites another attempt ({retries[0].words!r}), but {why}: say what to do instead of calling "
                "again.")
    silent = next((r for r in readings if r.act == "silence" and r.whole and not r.later), None)
    if stops and silent is not None:
        return (f"keeps the failure from the customer ({silent.words!r}), but {why}, and a stop ends by telling "
                "the customer: say what to tell them.")
    if nxt is not None and nxt.branch is Branch.RETRY_CHANGED:
        same = next((r for r in retries if r.same), None)
        if same is not None:
            return (f"asks for the same call again ({same.words!r}), but next is retry_changed on {nxt.argument}: "
                    "say what to change.")
        futile = next((r for r in readings if r.act == "no_retry" and not (r.same or r.later or r.customer)), None)
        if futile is not None:
            return (f"says calling again is pointless ({futile.words!r}), but {code.value} is retryable and next asks "
                    f"for the call again with {nxt.argument} changed: say that the same call fails, not any call.")
    unchanged = next((r for r in retries if r.same or not r.changed), None)
    if not RETRYABLE[code] and unchanged is not None:
        return (f"invites the failed call again with nothing changed ({unchanged.words!r}), but {code.value} is not "
                "retryable: say what to do instead of calling again.")
    return None


def _against_itself(readings: list[Reading]) -> str | None:
    """Words that say one thing and its opposite: stop and retry, retry and 'pointless', keep silent and tell."""
    retries = [r for r in readings if r.act == "retry"]
    stop = next((r for r in readings if r.act == "stop"), None)
    if stop is not None and any(not r.customer for r in retries):
        again = next(r for r in retries if not r.customer)
        return f"tells the reader to stop ({stop.words!r}) and to try again ({again.words!r}): choose one."
    for refusal in (r for r in readings if r.act == "no_retry"):
        clash = next((r for r in retries if r.customer == refusal.customer
                      and (not (refusal.same or refusal.later) or (refusal.same and r.same))), None)
        if clash is not None:
            return (f"says trying again is pointless ({refusal.words!r}) and asks for it ({clash.words!r}): choose "
                    "one.")
    silent = next((r for r in readings if r.act == "silence" and r.whole and not r.later), None)
    told = next((r for r in readings if r.act == "tell"), None)
    if silent is not None and told is not None:
        return (f"tells the reader to keep the failure from the customer ({silent.words!r}) and to tell them "
                f"({told.words!r}): choose one.")
    return None
