"""What a check may decide in a learner's words: contradictions with the structure, and the forbidden.

Every rule here only rejects, and each names the words it found: an echo of the input, internals, blame of the
customer; a retry invited where the branch stops or the code is not retryable, a success claimed after a failure
(or a failure in a success), a tool named that `next` does not name, a cut list called whole. None asks for a
phrase; an idea these rules cannot decide is shown to the learner to judge (Exercise.compare). Chapters 01-08, 14.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from ...contract.errors import _INTERNALS, RETRYABLE, Branch, ErrorCode, Next  # switch to the shared patterns module when it lands
from ...contract.redaction import looks_secret
from ._registry import Finding

__all__ = ["blames", "claims_complete", "claims_failure", "claims_success", "echoes", "internals", "invites_retry",
           "judge_failure", "names_other_tool"]

_NEGATIONS = {"not", "no", "never", "don't", "dont", "doesn't", "didn't", "mustn't", "shouldn't", "cannot", "can't",
              "won't", "without", "avoid", "nothing", "none", "nobody", "neither", "nor", "isn't", "aren't", "wasn't",
              "weren't", "hasn't", "haven't", "stop"}
_NEGATING_PAIRS = {("rather", "than"), ("instead", "of"), ("no", "point"), ("no", "need"), ("no", "use"),
                   ("not", "worth"), ("no", "sense")}
# Words that may stand between a negation and what it negates: "do not call it again", "do not wait or retry".
_FILLER = {"it", "this", "that", "the", "tool", "call", "calls", "again", "wait", "or", "and", "retry", "try", "to",
           "any", "more", "a", "same", "request", "once", "further", "be", "please", "in", "of", "get", "just"}
_NEW_SCOPE = {"so", "but", "then", "because", "since", "therefore", "thus", "hence", "although", "though", "yet",
              "when", "once", "after", "while"}
_NEGATED_AFTER = re.compile(
    r"^\W*(?:(?:will|would|can|could|does|do|did|is|are|was|were|may|might|must|should|has|have)\s+(?:not|never)\b|"
    r"(?:won't|can't|cannot|couldn't|doesn't|isn't|aren't|wasn't|mustn't|shouldn't)\b|"
    r"(?:is|are|would\s+be|will\s+be)\s+(?:pointless|useless|futile|forbidden|not\s+allowed|not\s+permitted)\b|will\s+fail\b)",
    re.IGNORECASE)
_FOR_CUSTOMER = re.compile(r"\b(?:customer|customers|user|they|them|their)\b", re.IGNORECASE)


_CLAUSE_END = re.compile(r"[.!?](?=\s|$)|[;:()]|,(?!\d)")  # "$650.00" and "10,000" stay whole


def _clauses(text: str) -> Iterator[str]:
    yield from (part for part in _CLAUSE_END.split(text) if part.strip())


def _negated(before: str, after: str = "") -> bool:
    """Whether the words around a match negate it: 'do not [call it] again', 'rather than trying', 'will not help'."""
    words = [w.strip("'\"").lower() for w in re.findall(r"[\w']+", before)]
    cut = max((i for i, w in enumerate(words) if w in _NEW_SCOPE), default=-1)
    words = words[cut + 1:]  # "it is not responding, so call it again": the not stays in its own scope
    while words and words[-1] in _FILLER:
        words.pop()
    if words and (set(words[-3:]) & _NEGATIONS or tuple(words[-2:]) in _NEGATING_PAIRS):
        return True
    return bool(after) and _NEGATED_AFTER.match(after) is not None


def _unnegated(pattern: re.Pattern[str], text: str, *, for_customer_ok: bool = False) -> str | None:
    """The first match of `pattern` in a clause of `text` that no word around it negates."""
    for clause in _clauses(text):
        for match in pattern.finditer(clause):
            before, after = clause[: match.start()], clause[match.end():]
            if _negated(before, after) or (for_customer_ok and _FOR_CUSTOMER.search(before)):
                continue
            return match.group(0).strip()
    return None


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
    return _unnegated(_BLAME, text)


# --- contradictions --------------------------------------------------------------------------------------------

_RETRY = re.compile(
    r"\bre-?tr(?:y|ies|ying|ied)\b|\btry(?:ing)?\b(?:\s+\S+){0,3}?\s+again\b|\bcall\w*\b(?:\s+\S+){0,3}?\s+again\b|"
    r"\brepeat(?:s|ing)?\b|\bwait(?:s|ing)?\b(?!\s+for\s+(?:the\s+|a\s+)?(?:customer|user|person|colleague|human|reply|"
    r"answer|them|their))|\bgive\s+it\s+(?:a\s+)?(?:moment|minute|second|few|bit|while)\b|"
    r"\bin\s+a\s+(?:moment|minute|second|bit|while|few\s+\w+)\b|\b\d+(?:\.\d+)?\s*(?:ms|milliseconds?|secs?|seconds?|minutes?)\b|"
    r"\b(?:try|trying|tries|use|using|look\s+up|looking\s+up|guess|guessing|pick|substitute|query|search|probe|scan)\s+"
    r"(?:(?:a|an|the|some|any)\s+)?(?:others?|another|different|nearby|neighbou?ring|adjacent|similar|next|smaller|lower|"
    r"new|alternative|more)\b(?:\s+(?:account|order|invoice|product|customer)s?)?"
    r"(?:\s+(?:ids?|numbers?|skus?|codes?|values?|ones|accounts?|orders?|invoices?|products?|amounts?))?",
    re.IGNORECASE)
_UNCHANGED = re.compile(r"\bsame\b|\bunchanged\b|\bas\s+(?:it\s+)?is\b|\bas\s+before\b", re.IGNORECASE)


def invites_retry(text: str) -> str | None:
    """Words asking the reader to wait, call again or try other values; negated or for the customer, they are fine."""
    return _unnegated(_RETRY, text, for_customer_ok=True)


def _invites_same_call(text: str) -> str | None:
    """A retry invitation of the very call that failed: 'call issue_refund again with the same invoice_id'."""
    for clause in _clauses(text):
        found = invites_retry(clause)
        if found and _UNCHANGED.search(clause):
            return found
    return None


# "already" marks a state that explains a refusal ("it has already shipped"), not a claim that the action was done;
# a negation or a "may" between the subject and the verb ("it may not have been applied") is no claim either.
_DONE_BY = r"(?:\s+(?:now|successfully|just|fully))?"
_GAP = r"(?:\s+(?!(?:not|never|no|may|might|could|would|should|cannot|can't|won't)\b)\S+){0,4}?"
_SUCCESS = re.compile(
    r"\b(?:refunds?|requests?|credits?|changes?|escalations?|orders?|shipments?|query|queries|calls?|actions?|it|this|"
    rf"that|everything)\b{_GAP}\s+(?:was|were|has\s+been|have\s+been|had\s+been|is\s+now|are\s+now|got){_DONE_BY}\s+"
    r"(?:processed|completed|approved|applied|done|granted|fulfilled|finished|carried\s+out|put\s+through)\b|"
    rf"\b(?:refunds?|credits?)\b{_GAP}\s+(?:was|were|has\s+been|have\s+been|is\s+now){_DONE_BY}\s+issued\b|"
    rf"\b(?:was|were|has\s+been|have\s+been|had\s+been|is\s+now|are\s+now){_DONE_BY}\s+(?:refunded|credited|escalated|updated)\b|"
    rf"\b(?:has|have|was|were|has\s+been|have\s+been){_DONE_BY}\s+shipped\b|\bis\s+on\s+(?:its|the)\s+way\b|"
    r"\b(?:went|has\s+gone|have\s+gone)\s+through\b|\bsucceeded\b|\bsuccessful(?:ly)?\b|\ball\s+done\b|"
    r"\b(?:I|we)(?:'ve|\s+have)?(?:\s+(?:just|now))?\s+(?:refunded|processed|issued|applied|credited|completed|"
    r"approved|updated|escalated)\b|\b(?:it|this|that|everything)(?:'s|\s+is|\s+was|\s+has\s+been)\s+(?:all\s+)?"
    r"(?:done|sorted|complete|completed|finished)\b",
    re.IGNORECASE)


def claims_success(text: str) -> str | None:
    """Words saying the action was done ('the refund was issued', 'it went through'), not negated."""
    return _unnegated(_SUCCESS, text)


_FAILURE = re.compile(r"\berror\b|\bfail(?:s|ed|ure|ing)?\b|\bcould\s+not\b|\bcouldn't\b|\bunable\b|\bnot\s+found\b|"
                      r"\b(?:does\s+not|doesn't)\s+exist\b|\bno\s+such\b|\bwent\s+wrong\b", re.IGNORECASE)


def claims_failure(text: str) -> str | None:
    """Words calling a successful answer a failure: 'error', 'failed', 'not found', 'could not'."""
    for clause in _clauses(text):
        for match in _FAILURE.finditer(clause):
            if not _negated(clause[: match.start()]):  # 'not found' carries its own not: only what comes before counts
                return match.group(0)
    return None


_COMPLETE = re.compile(r"\b(?:complete|full|whole|entire)\s+(?:list|answer|set|result)\b|\bthese\s+are\s+all\b|"
                       r"\bthat\s+is\s+all\b|\bthis\s+is\s+everything\b|\bnothing\s+is\s+missing\b|"
                       r"\bnone\s+(?:is|are)\s+missing\b|\ball\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?invoices\s+(?:are|were)\s+"
                       r"(?:here|shown|listed|returned|included)\b", re.IGNORECASE)


def claims_complete(text: str) -> str | None:
    """Words calling a list whole ('this is the complete list', 'nothing is missing'), not negated."""
    return _unnegated(_COMPLETE, text)


def names_other_tool(text: str, tools: Iterable[str], allowed: Iterable[str]) -> str | None:
    """A tool of `tools` that `text` names, not negated, other than the `allowed` ones (next's tool, the failed one)."""
    others = sorted(set(tools) - set(allowed))
    if not others:
        return None
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, others)) + r")\b")
    return _unnegated(pattern, text)


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
    stops = (next is None and not RETRYABLE[code]) or (next is not None and next.branch is Branch.STOP)
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
        if (done := claims_success(text)) is not None:
            return Finding("contradiction", f"{where} says {done!r}, but the call failed ({code.value}): never let a "
                                            "reader believe the action was done.")
        retry = invites_retry(text) if stops else _invites_same_call(text) if not RETRYABLE[code] else None
        if retry is not None:
            why = "next is stop" if next is not None and stops else f"{code.value} is not retryable"
            return Finding("contradiction", f"{where} invites another attempt ({retry!r}), but {why}: say what to do "
                                            "instead of calling again.")
        if (other := names_other_tool(text, tools, allowed)) is not None:
            said = f"next names {next.tool}" if next and next.tool else "next names no tool to call"
            return Finding("contradiction", f"{where} names {other}, but {said}: name in the words the call next "
                                            "selects, or none.")
    return None
