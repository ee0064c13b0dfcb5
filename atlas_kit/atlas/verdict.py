"""A grade as the model may be told it: correct or not, and why in plain words that name no expected record, figure
or phrase, so a later episode in the same conversation learns nothing of the solution from it.

The full reasons (grade.Grade.reasons) stay with the learner, in the log. Over MCP, `finish` replies with this
(chapter 15); how a run is graded is chapter 10's.
"""
from __future__ import annotations

from .grade import SILENT_WRONG, Grade

__all__ = ["PLAIN", "plain_reasons"]

# One sentence for each thing the grader finds, in the order a reply lists them; none names what was expected.
PLAIN: dict[str, str] = {
    "end_state": "Atlas's records did not end as the ticket required",
    "facts": "the answer does not state everything the customer needed to know",
    "false_report": "the answer says something that Atlas's records contradict",
    "dropped_failure": "a tool failed and the answer does not tell the customer",
    "omitted_tell": "the answer leaves out something the customer had to be told",
    "internal_names": "the answer tells the customer a name meant for the model or the trace",
    "fabrication": "the answer states a figure that no tool returned",
    SILENT_WRONG: "the answer passes on a figure as certain that its source did not support",
    "enumeration": "a call named a record id that neither the customer nor any tool had given",
    "duplicate_side_effect": "a change was made more than once",
    "apology_without_action": "the answer apologises, but nothing was done after the last error",
    "loop": "the same call failed the same way more than once",
    "step_limit": "the episode reached its limit of tool calls",
    "cost_limit": "the run reached its cost limit",
    "unfinished": "the run ended before a finished answer",
}
_LIMITS = {"step_limit", "cost_limit"}


def plain_reasons(grade: Grade) -> tuple[str, ...]:
    """What `grade` found, one plain sentence each (PLAIN), in PLAIN's order; () for a clean run."""
    found: set[str] = {*grade.labels, *grade.misses}
    if _LIMITS & found:
        found.discard("unfinished")  # the limit says why it did not finish
    return tuple(text for key, text in PLAIN.items() if key in found)
