"""The claim reader: what a learner's words instruct (retry, do not retry, stop, tell the customer, keep silent)
and assert (the action was done), clause by clause, with negation, the customer's scope and what is retried.

_text.py decides from these readings whether the words contradict themselves or their structure; this module only
reads. Rules over words, no model: a reading names the words it rests on, so feedback can quote them. Chapters
01-08, 13-16.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

__all__ = ["Act", "Reading", "claims_complete", "claims_failure", "claims_success", "clauses", "invites_retry",
           "negated", "read", "unnegated"]

Act = Literal["retry", "no_retry", "stop", "tell", "silence", "done"]


@dataclass(frozen=True)
class Reading:
    """One thing a clause instructs or asserts, and the words it rests on.

    same: a retry (or a refusal of one) of the very call that failed, nothing changed ('the same query again');
    changed: a retry whose sentence says what changes ('call again with region'); later: a retry after a wait, a
    refusal or a silence limited in time ('not now', 'not yet'); customer: the customer's action ('ask them to try
    again later'), not the reader's; whole: a silence about the failure itself, not one detail ('say nothing').
    """

    act: Act
    words: str
    same: bool = False
    changed: bool = False
    later: bool = False
    customer: bool = False
    whole: bool = True


# --- clauses and negation ---------------------------------------------------------------------------------------

_NEGATIONS = {"not", "no", "never", "don't", "dont", "doesn't", "didn't", "mustn't", "shouldn't", "cannot", "can't",
              "won't", "without", "avoid", "nothing", "none", "nobody", "neither", "nor", "isn't", "aren't", "wasn't",
              "weren't", "hasn't", "haven't", "stop", "pointless", "useless", "futile", "needless", "unnecessary",
              "refrain"}
_NEGATING_PAIRS = {("rather", "than"), ("instead", "of"), ("no", "point"), ("no", "need"), ("no", "use"),
                   ("not", "worth"), ("no", "sense"), ("no", "reason")}
# Words that may stand between a negation and what it negates: "do not call it again", "do not wait or retry".
_FILLER = {"it", "this", "that", "the", "tool", "call", "calls", "again", "wait", "or", "and", "retry", "try", "to",
           "any", "more", "a", "same", "request", "once", "further", "be", "please", "in", "of", "get", "just",
           "for", "you"}
_NEW_SCOPE = {"so", "but", "then", "because", "since", "therefore", "thus", "hence", "although", "though", "yet",
              "when", "once", "after", "while"}
_NEGATED_AFTER = re.compile(
    r"^(?:\W*(?!(?:and|but|so|then|or|if|to)\b)[\w']+){0,3}?\W*(?:(?:will|would|can|could|does|do|did|is|are|was|were|may|"
    r"might|must|should|has|have)\s+(?:not|never)\b|(?:won't|can't|cannot|couldn't|doesn't|isn't|aren't|wasn't|"
    r"mustn't|shouldn't|wouldn't)\b|(?:is|are|was|would\s+be|will\s+be)\s+(?:pointless|useless|futile|forbidden|"
    r"not\s+allowed|not\s+permitted|not\s+needed|unnecessary|a\s+waste)\b|(?:will|would|could|can|may|might)\s+"
    r"(?:only\s+)?(?:fail|time\s+out|be\s+refused|do\s+it\s+twice|charge\s+twice|refund\s+twice|duplicate)\b|"
    r"(?:is|are|was|were)\s+(?:unavailable|not\s+available|missing|incomplete|not\s+complete)\b)",
    re.IGNORECASE)

_CLAUSE_END = re.compile(r"[.!?](?=\s|$)|[;:()]|,(?!\d)|\s[—–]\s|\s-\s")  # "$650.00" and "10,000" stay whole
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
# "and" then an instruction starts a new one: "keep quiet and retry"; "no point waiting and retrying" stays one.
_AND_THEN = re.compile(r"\s+(?:and|&)\s+(?:then\s+)?(?=(?:tell|call|re-?try|try|ask|let|say|keep|wait|run|send|resend|"
                       r"repeat|stop|give|use|pick|escalate|offer|explain|inform|check|look|find|list|refund|book|end|"
                       r"move|narrow|add|make|do|don't|never|just|query|hand|pass)\b)", re.IGNORECASE)
# Words that hand what follows to the customer: "ask them to try again later", "the customer can write back".
_TO_CUSTOMER = re.compile(
    r"\b(?:tell|ask|invite|let|advise|remind|encourage|request|suggest\s+to|say\s+to|explain\s+to|inform|get|want|"
    r"have|for)\s+(?:the\s+)?(?:customers?|users?|clients?|them|him|her)\b|\b(?:the\s+)?(?:customers?|users?|clients?|"
    r"they)\s+(?:can|could|may|might|should|will\s+need\s+to|needs?\s+to|has\s+to|have\s+to|are\s+welcome\s+to)\b",
    re.IGNORECASE)


def _sentences(text: str) -> Iterator[str]:
    yield from (part for part in _SENTENCE_END.split(text) if part.strip())


def clauses(text: str) -> Iterator[str]:
    """The clauses of `text`: split at stops, semicolons, colons, commas and dashes, and at 'and' before an
    instruction."""
    for part in _CLAUSE_END.split(text):
        yield from (piece for piece in _AND_THEN.split(part) if piece.strip())


_NEAR = 200  # characters either side of a match that may negate it: a negation reaches three words, a scope a clause


def _around(clause: str, match: re.Match[str]) -> tuple[str, str]:
    """The words just before and just after a match (bounded, so a long clause of many matches reads in linear time)."""
    return clause[max(0, match.start() - _NEAR): match.start()], clause[match.end(): match.end() + _NEAR]


def negated(before: str, after: str = "") -> bool:
    """Whether the words around a match negate it: 'do not [call it] again', 'it is pointless to try', 'will not help'."""
    words = [w.strip("'\"").lower() for w in re.findall(r"[\w']+", before[-_NEAR:])]
    cut = max((i for i, w in enumerate(words) if w in _NEW_SCOPE), default=-1)
    words = words[cut + 1:]  # "it is not responding, so call it again": the not stays in its own scope
    if tuple(words[-2:]) in _NEGATING_PAIRS:  # "instead of retrying": 'of' is filler, and the pair ends in it
        return True
    while words and words[-1] in _FILLER:
        words.pop()
    if words and (set(words[-3:]) & _NEGATIONS or tuple(words[-2:]) in _NEGATING_PAIRS):
        return True
    return bool(after) and _NEGATED_AFTER.match(after) is not None


def unnegated(pattern: re.Pattern[str], text: str) -> str | None:
    """The first match of `pattern` in a clause of `text` that no word around it negates."""
    for clause in clauses(text):
        for match in pattern.finditer(clause):
            if not negated(*_around(clause, match)):
                return match.group(0).strip()
    return None


# --- what the words instruct ------------------------------------------------------------------------------------

# Other values of the same argument: "try other account ids", "guess another SKU".
_OTHER = (r"(?:(?:a|an|the|some|any)\s+)?(?:others?|another|different|nearby|neighbou?ring|adjacent|similar|next|smaller|"
          r"lower|new|alternative|more)\b(?:\s+(?:account|order|invoice|product|customer)s?)?")
_NOUN = r"(?:\s+(?:ids?|numbers?|skus?|codes?|values?|ones|accounts?|orders?|invoices?|products?|amounts?))"
_AGAIN = r"(?:again|once\s+more|one\s+more\s+time|another\s+time|a\s+second\s+time)"
_RETRY = re.compile(
    r"\bre-?(?:tr(?:y|ies|ying|ied)|run\w*|send\w*|submit\w*|issu\w+|attempt\w*|do|query\w*)\b|\bresend\w*|"
    r"\b(?:call|try|run|send|ask|query|make|submit|issue|book|request|attempt|repeat|use|invoke|fire)(?:s|ing|ed)?"
    rf"\b(?:\s+\S+){{0,4}}?\s+{_AGAIN}\b|\b(?:another|a\s+second|one\s+more)\s+(?:attempt|try|go|call|shot|round)\b|"
    r"\brepeat(?:s|ing)?\b|\bwait(?:s|ing)?\b(?!\s+for\s+(?:the\s+|a\s+)?(?:customer|user|person|colleague|human|"
    r"reply|answer|them|their))|\bgive\s+it\s+(?:a\s+)?(?:moment|minute|second|few|bit|while)\b|"
    r"\bin\s+a\s+(?:moment|minute|second|bit|while|few\s+\w+)\b|\b\d+(?:\.\d+)?\s*(?:ms|milliseconds?|secs?|seconds?|"
    rf"minutes?)\b|\b(?:(?:try|trying|tries|look\s+up|looking\s+up|guess|guessing|substitute|probe)\s+{_OTHER}{_NOUN}?|"
    rf"(?:use|using|pick|query|search|scan)\s+{_OTHER}{_NOUN})",  # "search other flights" is no guess of an id
    re.IGNORECASE)
# A refusal of any retry, said as a fact: "it will fail the same way", "no call can refund it".
_FUTILE = re.compile(r"\b(?:it|this|that|a\s+retry|retrying|another\s+call|any\s+call|no\s+call|calling|the\s+call)\s+"
                     r"(?:(?P<again>(?:will|would|can)\s+(?:only\s+)?(?:fail|time\s+out)\s+(?:again|the\s+same\s+way))|"
                     r"(?:can|will|would)\s*(?:not|never|n't)\s+(?:succeed|work|help|fix\s+it))\b", re.IGNORECASE)
_SAME = re.compile(r"\bsame\b|\bunchanged\b|\bas\s+(?:it\s+)?(?:is|was)\b|\bas\s+before\b|\bexactly\b|\bidentical\w*|"
                   r"\bthis\s+exact\b|\bthe\s+very\b|\bverbatim\b|\bjust\s+(?:re-?try|call|run|try|repeat|send|"
                   r"resend|do|ask)\b", re.IGNORECASE)
_CHANGED = re.compile(
    r"\b(?:with|using|per|each|instead|after|until)\b|\bon\s+(?:the|a|it|that|each|one)\b|\b(?:add|narrow|shorten|"
    r"split|chang|fix|correct|mov|drop|remov|set|lower|rais|reduc|recomput|adjust|replac|break)\w*|\b(?:different|"
    r"other|another|new|smaller|shorter|fewer|right|matching|valid|proper|real|full)\b", re.IGNORECASE)
_LATER = re.compile(r"\b(?:later|tomorrow|shortly|soon|after\s+a\s+(?:pause|while|wait)|in\s+an?\s+(?:hour|moment|"
                    r"minute|while|bit|few)|next\s+(?:week|day|time)|now|right\s+now|today|yet|for\s+now|until|"
                    r"before|at\s+the\s+moment|at\s+this\s+point)\b", re.IGNORECASE)
_STOP = re.compile(r"\bgive\s+up\b|\bstop\s+(?:here|now|there|working|the\s+task)\b|^\W*stop\W*$|"
                   r"\b(?:do\s+not|don't|never)\s+(?:continue|proceed|go\s+on)\b|\bend\s+(?:the\s+)?(?:task|"
                   r"conversation|episode|turn|here)\b|\babandon\w*", re.IGNORECASE)
_TELL = re.compile(r"\b(?:tell|inform|notify|warn|update)\s+(?:the\s+)?(?:customers?|users?|clients?|them|him|her)\b|"
                   r"\blet\s+(?:the\s+)?(?:customers?|users?|clients?|them)\s+know\b|\bexplain\b(?:\s+\S+){0,4}?\s+to\s+"
                   r"(?:the\s+)?(?:customers?|users?|them)\b|\bsay\s+(?:so\s+)?to\s+(?:the\s+)?(?:customers?|users?|"
                   r"them)\b|\bmention\b(?:\s+\S+){0,3}?\s+to\s+(?:the\s+)?(?:customers?|users?|them)\b", re.IGNORECASE)
_SILENCE = re.compile(r"\bsay\s+nothing\b|\bkeep\s+(?:quiet|silent|mum|it\s+quiet|this\s+quiet)\b|\bstay\s+"
                      r"(?:quiet|silent)\b|\bkeep\s+(?:it|this|that)\s+(?:\S+\s+){0,2}?from\s+(?:the\s+)?(?:customers?|"
                      r"users?|them)\b|\bhide\s+(?:it|this|that)\b|\b(?:need\s+not|needn't|does\s+not\s+need\s+to|"
                      r"doesn't\s+need\s+to)\s+(?:know|hear|be\s+told)\b", re.IGNORECASE)
_LEAD = re.compile(r"(?:[\w']+\W+){0,3}$")  # the last words before a negated tell, to quote it whole
# After "say nothing": what is kept back is only a detail ("say nothing about the id", "nothing else").
_TO_THEM = re.compile(r"^\s*to\s+(?:the\s+)?(?:customers?|users?|clients?|them|him|her)\b", re.IGNORECASE)
_PARTIAL = re.compile(r"^\W*(?:else|more|further|beyond|but|except|other\s+than|about\s+(?!(?:it|this|that|"
                      r"the\s+(?:error|failure|problem|outage|refusal))\b))", re.IGNORECASE)
_ABOUT = re.compile(r"^\w+\s*|\s*\bto\s+(?:the\s+)?\w+$")  # "mention [this] to the customer": what is mentioned
# After a negated tell: what is kept back. Nothing, anything or the failure itself is silence; one detail is not.
_WHOLE = re.compile(r"^\W*(?:(?:anything|nothing|at\s+all)\b|about\s+(?:it|this|that|the\s+(?:error|failure|problem|"
                    r"outage|refusal))\b|(?:it|this|that)\W*$|$|(?:yet|for\s+now|until)\b)", re.IGNORECASE)


def read(text: str, *, audience: Literal["model", "customer"] = "model",
         changes: Iterable[str] = ()) -> tuple[Reading, ...]:
    """What `text` instructs and asserts, clause by clause, in order.

    audience: who reads it. For the customer ('please try again later') every retry is the customer's own.
    changes: names whose mention marks a retry as changed (the argument to change, the tool to call first).
    """
    found: list[Reading] = []
    named = re.compile(r"\b(?:" + "|".join(map(re.escape, changes)) + r")\b") if changes else None
    for sentence in _sentences(text):
        changed = _CHANGED.search(sentence) is not None or (named is not None and named.search(sentence) is not None)
        for part in _CLAUSE_END.split(sentence):
            to_customer = audience == "customer"
            for clause in filter(str.strip, _AND_THEN.split(part)):
                scope = _TO_CUSTOMER.search(clause)
                found += _retries(clause, changed=changed, customer=to_customer, scope=scope)
                found += _telling(clause)
                if (stop := _STOP.search(clause)) is not None and not negated(_around(clause, stop)[0]):
                    found.append(Reading("stop", stop.group(0).strip()))
                if (done := claims_success(clause)) is not None:
                    found.append(Reading("done", done))
                # "ask them to check it and send it again": the customer's scope runs on past "and"
                to_customer = to_customer or scope is not None
    return tuple(found)


def _retries(clause: str, *, changed: bool, customer: bool, scope: re.Match[str] | None) -> list[Reading]:
    """The retries a clause invites or refuses; a refusal said as a fact ('it will fail the same way') too."""
    out: list[Reading] = []
    same, later = _SAME.search(clause) is not None, _LATER.search(clause) is not None
    for match in _RETRY.finditer(clause):
        before, after = _around(clause, match)
        theirs = customer or (scope is not None and scope.start() < match.start())
        act: Act = "no_retry" if negated(before, after) else "retry"
        out.append(Reading(act, match.group(0).strip(), same=same, changed=changed and not same, later=later,
                           customer=theirs))
    if not out and (futile := _FUTILE.search(clause)) is not None:  # "it would fail again": the same call again
        out.append(Reading("no_retry", futile.group(0), same=same or futile.group("again") is not None, later=later,
                           customer=customer))
    return out


def _telling(clause: str) -> list[Reading]:
    """A tell of the customer, or a silence: a negated tell, or 'say nothing', 'keep it from them'."""
    out: list[Reading] = []
    later = _LATER.search(clause) is not None
    for match in _TELL.finditer(clause):
        before, after = _around(clause, match)
        if not negated(before):
            out.append(Reading("tell", match.group(0).strip()))
            continue
        kept = _ABOUT.sub("", match.group(0)) if match.group(0).lower().startswith(("mention", "explain")) else after
        said = (_LEAD.search(before) or match).group(0) + match.group(0)  # quoted with its negation: "do not tell them"
        out.append(Reading("silence", said.strip(), later=later, whole=_WHOLE.match(kept) is not None))
    for match in _SILENCE.finditer(clause):
        before, after = _around(clause, match)
        told = negated(before)
        partial = _PARTIAL.match(_TO_THEM.sub("", after, count=1)) is not None
        out.append(Reading("tell" if told else "silence", match.group(0).strip(), later=later, whole=not partial))
    return out


def invites_retry(text: str) -> str | None:
    """Words asking the reader to wait, call again or try other values; negated or for the customer, they are fine."""
    return next((r.words for r in read(text) if r.act == "retry" and not r.customer), None)


# --- what the words assert ----------------------------------------------------------------------------------------

# "already" marks a state that explains a refusal ("it has already shipped"), not a claim that the action was done;
# a negation or a "may" between the subject and the verb ("it may not have been applied") is no claim either.
_DONE_BY = r"(?:\s+(?:now|successfully|just|fully))?"
_GAP = r"(?:\s+(?!(?:not|never|no|may|might|could|would|should|cannot|can't|won't)\b)\S+){0,4}?"
_PASSIVE = r"(?:was|were|has\s+been|have\s+been|had\s+been|is\s+now|are\s+now)"
_SUCCESS = re.compile(
    r"\b(?:refunds?|requests?|credits?|changes?|escalations?|orders?|shipments?|query|queries|calls?|actions?|it|this|"
    rf"that|everything|bookings?|reservations?|payments?|access|seats?)\b{_GAP}\s+(?:{_PASSIVE}|got){_DONE_BY}\s+"
    r"(?:processed|completed|approved|applied|done|granted|fulfilled|finished|carried\s+out|put\s+through)\b|"
    rf"\b{_PASSIVE}{_DONE_BY}\s+(?:booked|reserved|generated|placed|produced|listed|fetched|retrieved|approved|"
    r"processed|completed|granted|"
    r"applied|fulfilled|put\s+through|carried\s+out)\b|"
    rf"\b(?:refunds?|credits?)\b{_GAP}\s+(?:was|were|has\s+been|have\s+been|is\s+now){_DONE_BY}\s+issued\b|"
    rf"\b{_PASSIVE}{_DONE_BY}\s+(?:refunded|credited|escalated|updated)\b|"
    rf"\b(?:has|have|was|were|has\s+been|have\s+been){_DONE_BY}\s+shipped\b|\bis\s+on\s+(?:its|the)\s+way\b|"
    r"\b(?:went|has\s+gone|have\s+gone)\s+through\b|\bsucceeded\b|\bsuccessful(?:ly)?\b|\ball\s+done\b|"
    r"\b(?:I|we)(?:'ve|\s+have)?(?:\s+(?:just|now))?\s+(?:refunded|processed|issued|applied|credited|completed|"
    r"approved|updated|escalated|booked)\b|\b(?:it|this|that|everything)(?:'s|\s+is|\s+was|\s+has\s+been)\s+"
    r"(?:all\s+)?(?:done|sorted|complete|completed|finished)\b|\b(?:the\s+)?(?:call|request|refund|query|booking|"
    r"change|payment)\s+(?:completed|worked)\b",
    re.IGNORECASE)


# A date or a time in the past makes a clause a fact from before ("the payment was processed in March"), not a claim
# that the failed action was done.
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
_PAST = re.compile(rf"\b(?:in|on|back\s+in|since)\s+(?:\d{{1,2}}\s+)?{_MONTH}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\bago\b|"
                   r"\blast\s+(?:week|month|year|time)\b|\b(?:earlier|previously|before\s+this)\b", re.IGNORECASE)


def claims_success(text: str) -> str | None:
    """Words saying the action was done ('the refund was issued', 'it went through'), not negated and not dated."""
    return next((done for clause in clauses(text) if not _PAST.search(clause)
                 and (done := unnegated(_SUCCESS, clause)) is not None), None)


_FAILURE = re.compile(r"\berror\b|\bfail(?:s|ed|ure|ing)?\b|\bcould\s+not\b|\bcouldn't\b|\bunable\b|\bnot\s+found\b|"
                      r"\b(?:does\s+not|doesn't)\s+exist\b|\bno\s+such\b|\bwent\s+wrong\b", re.IGNORECASE)


def claims_failure(text: str) -> str | None:
    """Words calling a successful answer a failure: 'error', 'failed', 'not found', 'could not'."""
    for clause in clauses(text):
        for match in _FAILURE.finditer(clause):
            if not negated(_around(clause, match)[0]):  # 'not found' carries its own not: only what comes before counts
                return match.group(0)
    return None


_COMPLETE = re.compile(r"\b(?:complete|full|whole|entire)\s+(?:list|answer|set|result)\b|\bthese\s+are\s+all\b|"
                       r"\bthat\s+is\s+all\b|\bthis\s+is\s+everything\b|\bnothing\s+is\s+missing\b|"
                       r"\bnone\s+(?:is|are)\s+missing\b|\ball\s+(?:of\s+)?(?:the\s+)?(?:\w+\s+)?(?:invoices|rows)\s+"
                       r"(?:are|were|have|came)\s+(?:here|shown|listed|returned|included|back|been\s+returned)\b",
                       re.IGNORECASE)


def claims_complete(text: str) -> str | None:
    """Words calling a list whole ('this is the complete list', 'nothing is missing'), not negated."""
    return unnegated(_COMPLETE, text)
