"""The contract's rubric (contract/rubric.py) on real error texts: each error event judged rule by rule, how many
errors pass each rule, and recovery split by whether an error named a next step. It reads someone else's words, so
it is a heuristic, and every output that shows it says so (HEURISTIC). Chapter "Errors in the wild".
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from ..contract.errors import Branch
from ..contract.rubric import RULES, Judgement, Rule, Verdict, judge
from ..stats import Rate
from ..stats import fisher_exact
from .analysis import ErrorEvent, NextAction

HEURISTIC = ("Heuristic: the contract's rubric reads each error's words as the model saw them; it cannot know what "
             "the tool's author meant, and a step said in words its patterns do not know counts as not said.")

RULE_LABELS: dict[Rule, str] = {
    "is_error": "flagged as an error by the data (not known when inferred from the text)",
    "structure": "a shape a program can read (a contract body, or code and message)",
    "code": "a stable code a program can match on",
    "retryable": "says whether calling again can succeed",
    "next": "names a next step (a branch or other tool, or the argument and its form)",
    "echo": "repeats none of the call's input (12 characters or more of an argument)",
    "internals": "carries no internals (traceback, path, SQL, exception class, key)",
    "length": "short (80 estimated tokens or fewer)",
}


_TAKEN: dict[NextAction, Branch] = {"identical_retry": Branch.RETRY_UNCHANGED, "changed_arguments": Branch.RETRY_CHANGED,
                                    "other_tool": Branch.SWITCH_TOOL, "reply": Branch.STOP, "end": Branch.STOP}


def branch_taken(action: NextAction) -> Branch:
    """The contract's branch a next action took, read from the action alone: an identical retry is retry_unchanged,
    changed arguments retry_changed, another tool switch_tool, and a reply or the end stop (no further call on the
    goal). It says which move was made, not whether it was the right one or what the model meant."""
    return _TAKEN[action]


@dataclass(frozen=True)
class RubricReading:
    """One error event and the rubric's judgement of its text (a heuristic reading: HEURISTIC)."""

    event: ErrorEvent
    judgement: Judgement

    @property
    def named_next(self) -> bool:
        """Whether the text passes the rubric's `next` rule: it names a branch, another tool, or the argument."""
        return self.judgement.verdict("next").status == "pass"


# The whole text is one quoted name, after an optional "Error:" or exception class: what `str(KeyError(key))` gives
# a tool that wraps any exception as "Error: {e}" (`Error: 'flight_number'`): the missing key and nothing else.
_LEAKED_KEY = re.compile(r"\s*(?:(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception)\s*:\s*)?(['\"])[\w.\-\[\]]{1,80}\1\.?\s*",
                         re.IGNORECASE)


def leaked_key(text: str) -> bool:
    """Whether `text` is only an exception's key (`Error: 'flight_number'`, `KeyError: "user_id"`): a name from the
    code, with no word saying what went wrong or what to do."""
    return _LEAKED_KEY.fullmatch(text) is not None


def judge_event(event: ErrorEvent) -> Judgement:
    """The rubric on one error: its text, the call's arguments (so an echo of the input is found), and the error
    flag when the data carries one (basis "flag"); an error inferred from its text has no flag, so is_error is n/a.
    No schema: someone else's log does not give the tool's input schema. An exception's class is an internal to the
    contract's rubric already; an exception's key alone (leaked_key) is one here too."""
    judgement = judge(event.text, is_error=True if event.basis == "flag" else None, arguments=event.arguments)
    if judgement.verdict("internals").status != "pass" or not leaked_key(event.text):
        return judgement
    failed = Verdict("internals", "fail", f"holds what belongs in the trace: an exception's key ({event.text.strip()!r}"
                     ", a KeyError's words: the name the code looked up, and nothing about what went wrong)")
    return replace(judgement, verdicts=tuple(failed if v.rule == "internals" else v for v in judgement.verdicts))


def read_by_rubric(events: Iterable[ErrorEvent]) -> list[RubricReading]:
    """Every event with the rubric's judgement of it, in order."""
    return [RubricReading(ev, judge_event(ev)) for ev in events]


@dataclass(frozen=True)
class RuleCount:
    """How many error texts pass, fail, and could not be judged (n/a) on one rule; `share` is passed over judged
    (nan when none was judged)."""

    rule: Rule
    passed: int
    failed: int
    unjudged: int

    @property
    def judged(self) -> int:
        return self.passed + self.failed

    @property
    def share(self) -> float:
        return self.passed / self.judged if self.judged else math.nan


def rule_counts(readings: Sequence[RubricReading]) -> list[RuleCount]:
    """One count per rule of the rubric, in RULES order (every rule, zeros included)."""
    def count(rule: Rule, status: str) -> int:
        return sum(r.judgement.verdict(rule).status == status for r in readings)
    return [RuleCount(rule, count(rule, "pass"), count(rule, "fail"), count(rule, "n/a")) for rule in RULES]


@dataclass(frozen=True)
class NextStepRecovery:
    """Episodes an error reached, split by whether at least one of their errors named a next step (the rubric's
    `next` rule) or none did: correct among each (metrics.Rate, outcomes known only), and the episodes left out
    because their outcome is unknown. Observational twice over: the errors were not assigned, and the split is a
    heuristic reading of their words. Results records, which keep no error text, are in neither group."""

    named: Rate
    not_named: Rate
    unknown_named: int
    unknown_not_named: int

    @property
    def difference(self) -> float:
        """named.rate - not_named.rate, in proportion; nan if either group is empty."""
        if not (self.named.n and self.not_named.n):
            return math.nan
        return self.named.rate - self.not_named.rate

    @property
    def p_value(self) -> float:
        """Fisher's exact test, two-sided, of named or not x correct or not; nan if either group is empty."""
        if not (self.named.n and self.not_named.n):
            return math.nan
        a, b = self.named, self.not_named
        return fisher_exact(a.successes, a.n - a.successes, b.successes, b.n - b.successes)


def recovery_by_next_step(readings: Iterable[RubricReading]) -> NextStepRecovery:
    """Recovery in the episodes where an error named a next step, and in those where none did (NextStepRecovery)."""
    named: dict[tuple[str, str], bool] = {}
    correct: dict[tuple[str, str], bool | None] = {}
    for r in readings:
        key = (r.event.file, r.event.episode)
        named[key] = named.get(key, False) or r.named_next
        correct[key] = r.event.correct
    def side(flag: bool) -> tuple[Rate, int]:
        outcomes = [correct[k] for k, v in named.items() if v is flag]
        known = [c for c in outcomes if c is not None]
        return Rate(sum(known), len(known)), len(outcomes) - len(known)
    (yes, yes_unknown), (no, no_unknown) = side(True), side(False)
    return NextStepRecovery(yes, no, yes_unknown, no_unknown)
