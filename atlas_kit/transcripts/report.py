"""The transcript dashboard as text and as table rows, and the CSV of error events: every output names its
source ("real transcripts: FILE, MODEL") and says it is observational, and the contract rubric's reading says it is
a heuristic. Computing is analysis.py's, rates.py's, groups.py's and rubric.py's; drawing is transcript_charts.py's.
`atlas-kit transcripts` prints `dashboard`.
"""
from __future__ import annotations

import csv
import math
import os
import textwrap
from pathlib import Path
from typing import Sequence

from ..contract.rubric import RULES
from ..types import TableRows, canonical
from .analysis import ErrorEvent, error_events, loops, next_action_counts, next_actions_by_model
from .comparison import model_action_rows, model_rows, paired_rows, pass_k_rows
from .groups import ErrorGroup, error_groups
from .labels import MODEL_UNKNOWN, p_text, percent
from .masking import shown
from .model import Copy, Evidence, FileRead, ToolCall, Transcripts
from .rates import Recovery, TaskSplit, paired_by_task, pass_hat_k, recovery, recovery_by_model, task_split
from .rubric import HEURISTIC, RULE_LABELS, NextStepRecovery, RubricReading, judge_event, read_by_rubric, \
    recovery_by_next_step, rule_counts

__all__ = ["ACTION_LABELS", "CSV_COLUMNS", "OBSERVATIONAL", "copies_line", "dashboard", "group_rows",
           "next_action_rows", "next_step_rows", "rubric_rows", "source_line", "summary_rows", "task_split_rows",
           "write_error_csv"]

ACTION_LABELS = {"identical_retry": "identical retry (same tool, same arguments)",
                 "changed_arguments": "same tool, changed arguments", "other_tool": "another tool",
                 "reply": "replied to the user (text, no call)", "end": "nothing after (the episode ended)"}

OBSERVATIONAL = ("Observational: no episode was assigned an error at random, and errors come with harder tasks, "
                 "so a difference in success is not the effect of the errors.")
CSV_COLUMNS = ("file", "evidence", "model", "episode", "task_id", "trial", "error", "tool", "arguments", "error_text",
               "masked_text", "error_known_by", "next_action", "next_tool", "next_also_text", "user_spoke_first",
               "correct", "reward", *(f"rubric_heuristic_{rule}" for rule in RULES))
"""The CSV's columns; the rubric_heuristic_ ones are the contract rubric's verdicts (pass, fail, n/a) on the error's
text, a heuristic reading (rubric.HEURISTIC)."""
_KINDS: dict[Evidence, str] = {
    "real": "real transcripts", "replayed": "replayed transcripts",
    "simulated": "simulated transcripts (a rule-based stand-in or scripted mock, not an LLM)"}


def _file_line(note: FileRead, names_only: bool) -> str:
    kind = "; ".join(_KINDS[e] for e in note.evidence) or "no episodes"
    models = ", ".join(note.models) if len(note.models) <= 3 else f"{len(note.models)} models"
    return f"{kind}: {Path(note.path).name if names_only else note.path}, {models or MODEL_UNKNOWN}"


def source_line(transcripts: Transcripts, *, names_only: bool = False) -> str:
    """Where the episodes came from, for a title or caption: each file's kind of evidence, path (its name alone
    with `names_only`, for a chart) and models, then 'observational'."""
    return "; ".join(_file_line(n, names_only) for n in transcripts.files) + " (observational)"


def summary_rows(rec: Recovery, *, caption: str) -> TableRows:
    """The dashboard's headline figures as (measure, value) rows; each value says its count."""
    rows: list[list[object]] = [
        ["episodes", rec.episodes],
        ["hit a tool error", f"{rec.hit} ({percent(rec.hit / rec.episodes if rec.episodes else math.nan)})"],
        ["recovery: correct | an error reached the model", str(rec.with_error)],
        ["success without errors", str(rec.without_error)],
        ["difference (recovery - success without errors)",
         "n/a" if math.isnan(rec.difference) else
         f"{rec.difference * 100:+.0f} points; Fisher's exact test, two-sided: {p_text(rec.p_value)}"],
        ["outcome unknown (left out)", f"{rec.unknown} ({rec.unknown_with_error} with an error)"],
    ]
    return TableRows(["measure", "value"], rows, caption)


def task_split_rows(split: TaskSplit, *, caption: str, across_models: bool = False) -> TableRows:
    """Recovery beside success without errors on the same tasks (another trial of the task met an error) and on
    the tasks no trial did: when the same tasks fail without their errors too, the errors came with the tasks.
    `across_models`: the split was made so (rates.task_split), and the rows say "run" of any model, not "trial"."""
    same, none = ("another run", "no model's run") if across_models else ("another trial", "no trial")
    return TableRows(["episodes", "correct"], [
        ["an error reached the model (recovery)", str(split.with_error)],
        [f"no error, on tasks where {same} met one", str(split.same_tasks)],
        [f"no error, on tasks {none} met one on", str(split.other_tasks)]], caption)


def next_action_rows(events: Sequence[ErrorEvent], *, caption: str) -> TableRows:
    """What the model did next after each error: one row per action (ACTION_LABELS), its count and share."""
    return TableRows(["next action", "errors", "share"],
                     [[ACTION_LABELS[c.action], c.count, percent(c.share)] for c in next_action_counts(events)],
                     caption)


def rubric_rows(readings: Sequence[RubricReading], *, caption: str) -> TableRows:
    """Per rule of the contract's rubric, how many error texts pass, fail or could not be judged (n/a), and the
    share passing among those judged. The caption ends with HEURISTIC: a reading of someone else's words."""
    return TableRows(["rule (the contract's rubric)", "pass", "fail", "n/a", "pass (of judged)"],
                     [[f"{c.rule}: {RULE_LABELS[c.rule]}", c.passed, c.failed, c.unjudged, percent(c.share)]
                      for c in rule_counts(readings)], f"{caption}. {HEURISTIC}")


def next_step_rows(rec: NextStepRecovery, *, caption: str) -> TableRows:
    """Recovery in episodes where an error named a next step (the rubric's `next` rule) against those where none
    did, with the difference and Fisher's exact test; the caption ends with HEURISTIC."""
    rows: list[list[object]] = [
        ["at least one error named a next step", str(rec.named)],
        ["no error named a next step", str(rec.not_named)],
        ["difference (named - not named)",
         "n/a (one group is empty)" if math.isnan(rec.difference) else
         f"{rec.difference * 100:+.0f} points; Fisher's exact test, two-sided: {p_text(rec.p_value)}"],
        ["outcome unknown (left out)", rec.unknown_named + rec.unknown_not_named],
    ]
    return TableRows(["episodes an error reached, by its words", "correct"], rows, f"{caption}. {HEURISTIC}")


def group_rows(groups: Sequence[ErrorGroup], *, caption: str, top: int = 8) -> TableRows:
    """The `top` error groups: errors, episodes, recovery among those episodes, tools, and the masked text."""
    return TableRows(["errors", "episodes", "recovery", "tools", "error text (ids and numbers masked)"],
                     [[g.errors, len(g.episodes), str(g.recovery) if g.recovery.n else "n/a", ", ".join(g.tools),
                       g.masked] for g in groups[:top]], caption)


def _text(rows: TableRows, *, wrap: int = 64) -> list[str]:
    """Rows as aligned text; a long last column wraps between words (never cut)."""
    cells = [[str(c) for c in r] for r in rows.rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(rows.columns[:-1])]
    def line(parts: Sequence[str]) -> list[str]:
        head = "  ".join(p.ljust(w) for p, w in zip(parts, widths))
        tail = textwrap.wrap(parts[-1], wrap, break_long_words=False, break_on_hyphens=False) or [""]
        return [f"  {head}  {tail[0]}".rstrip()] + [f"  {' ' * len(head)}  {t}" for t in tail[1:]]
    return [out for r in [list(rows.columns), *cells] for out in line(r)]


def _read_line(note: FileRead, transcripts: Transcripts, names_only: bool) -> str:
    named = {str(e.metadata.get("model_from")) for e in transcripts.episodes if e.file == note.path
             and e.metadata.get("model_from")}
    model = f"; the model is read from {', '.join(sorted(named))}" if named else ""
    model += f"; {len(note.models)} models, each named by its own records" if len(note.models) > 1 else ""
    path = Path(note.path).name if names_only else note.path
    return f"  {path}: read as {note.format} ({note.reason}); {note.episodes} episodes{model}"


def copies_line(transcripts: Transcripts, *, names_only: bool = False) -> str:
    """How many episodes were left out as copies of episodes read before (identical episodes count once), and
    where: always said, 'no duplicates' included."""
    if not transcripts.copies:
        return "Identical episodes count once: no duplicates found."
    def name(path: str) -> str:
        return Path(path).name if names_only else path
    by: dict[str, list[Copy]] = {}
    for c in transcripts.copies:
        by.setdefault(c.file, []).append(c)
    said = [f"{len(cs)} in {name(f)} (copies of episodes in {', '.join(dict.fromkeys(name(c.of_file) for c in cs))})"
            for f, cs in by.items()]
    return (f"Identical episodes count once: {len(transcripts.copies)} duplicates dropped (the same task and trial, "
            f"or id, turns and outcome as an episode read before): {'; '.join(said)}.")


def dashboard(transcripts: Transcripts, *, top: int = 8, skip: Sequence[str] = (), names_only: bool = False) -> str:
    """The dashboard as text: the source and the duplicates left out, the observational caveat, the headline
    figures, per model when the files name more than one (recovery, paired by task, next actions), the same tasks
    without their errors and pass^k when tasks ran more than once, the next actions, the contract rubric's reading of
    the error texts (a heuristic, and said to be) with recovery by whether an error named a next step, and the top
    error groups, with what the data could not give. `skip` names tools that are not actions when finding the next
    one (analysis.next_action); `names_only` names each file without its folder (for a notebook's output)."""
    source = source_line(transcripts, names_only=names_only)
    events = error_events(transcripts.episodes, skip=skip)
    several = len({e.model for e in transcripts.episodes}) > 1
    lines = [f"Source: {source}", *[_read_line(n, transcripts, names_only) for n in transcripts.files],
             copies_line(transcripts, names_only=names_only), OBSERVATIONAL, ""]
    lines += _text(summary_rows(recovery(transcripts.episodes), caption=source))
    sections = (_per_model(transcripts, source) if several else []) + _trials(transcripts, source)
    lines += sections + [""] * bool(sections) + _counts(transcripts, events)
    if not events:  # nothing to read past the headline figures: say so once, not in empty tables
        return shown("\n".join(lines + ["", "No tool error text in these files: no next actions, rubric reading or error "
                                       "groups to show."]))
    lines += ["", f"What the model did next after each of {len(events)} tool errors{_skipped(transcripts, skip)}:"]
    lines += _text(next_action_rows(events, caption=source))
    if several:
        lines += ["", "What each model did next after its own errors:"]
        lines += _text(model_action_rows(next_actions_by_model(events), caption=source))
    lines += _rubric_lines(read_by_rubric(events), source)
    groups = error_groups(events)
    lines += ["", f"Top error groups ({min(top, len(groups))} of {len(groups)}):"]
    lines += _text(group_rows(groups, caption=source, top=top))
    return shown("\n".join(lines))


def _per_model(transcripts: Transcripts, source: str) -> list[str]:
    """Each model's figures, and recovery paired by task across models (tasks of one source only)."""
    lines = ["", f"Per model (each as its records name it; {MODEL_UNKNOWN} where they name none):"]
    lines += _text(model_rows(recovery_by_model(transcripts.episodes), caption=source))
    paired = [r for r in paired_by_task(transcripts.episodes) if r.others.n]
    if paired:
        lines += ["", "Paired by task: on the tasks where a model met an error, the other models on the same tasks "
                  "(task ids of one source; when theirs is low too, the tasks are hard whoever runs them):"]
        lines += _text(paired_rows(paired, caption=source))
    return lines


def _trials(transcripts: Transcripts, source: str) -> list[str]:
    """The same tasks without their errors, and pass^k, when some task ran more than once."""
    lines: list[str] = []
    split = task_split(transcripts.episodes)
    if split.same_tasks.n:  # some task ran both with and without an error: the task mix, shown
        lines += ["", "The same tasks without their errors (when these fail too, the errors came with hard tasks):"]
        lines += _text(task_split_rows(split, caption=source))
    reliability = pass_hat_k(transcripts.episodes)
    if len(reliability) > 1:
        lines += ["", "pass^k: the chance that k trials of a task all succeed (tau-bench's reliability measure):"]
        lines += _text(pass_k_rows(reliability, caption=source))
    return lines


def _counts(transcripts: Transcripts, events: Sequence[ErrorEvent]) -> list[str]:
    """The tool errors and how they were known, the loop signal, and what some files cannot give."""
    flagged = sum(ev.basis == "flag" for ev in events)
    signals = loops(events)
    lines = [f"  tool errors: {len(events)} (known by an error flag in the data: {flagged}; inferred from the text: "
             f"{len(events) - flagged})",
             f"  loop signal (the same tool, arguments and error text twice in one episode): {len(signals)}, in "
             f"{len({(s.file, s.episode) for s in signals})} episodes"]
    summaries = [e for e in transcripts.episodes if e.detail == "summary"]
    if summaries:
        broke = sum(bool(e.summary and e.summary.loop_detected) for e in summaries)
        lines.append(f"  {len(summaries)} episodes are results records without transcripts: they count in recovery, "
                     "but give no error text, next action or rubric reading (nor the loop signal above; atlas_kit's "
                     f"loop breaker fired in {broke} of them).")
    user_calls = sum(_number(e.metadata.get("user_tool_calls")) for e in transcripts.episodes)
    if user_calls:
        user_errors = sum(_number(e.metadata.get("user_tool_errors")) for e in transcripts.episodes)
        lines.append(f"  the simulated user's own tool calls (tau2-bench): {user_calls}, {user_errors} of them errors; "
                     "the agent neither made nor read them, so they are in no count here.")
    return lines


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _skipped(transcripts: Transcripts, skip: Sequence[str]) -> str:
    """What --skip-tools did, for the next-action heading: the named tools that were called, and those never called
    (a misspelt name skips nothing, and says so)."""
    called = {t.tool for e in transcripts.episodes for t in e.turns if isinstance(t, ToolCall)}
    names = sorted(set(skip))
    used, unused = [n for n in names if n in called], [n for n in names if n not in called]
    said = [f"calls to {', '.join(used)} passed over"] if used else []
    said += [f"no call to {', '.join(unused)} in these files"] if unused else []
    return f" ({'; '.join(said)})" if said else ""


def _rubric_lines(readings: Sequence[RubricReading], source: str) -> list[str]:
    """The dashboard's rubric section: each rule's passes, then recovery by whether an error named a next step."""
    lines = ["", f"The contract's rubric on each of {len(readings)} error texts. {HEURISTIC}"]
    lines += _text(rubric_rows(readings, caption=source))
    lines += ["", "Recovery by whether an error named a next step (the rubric's `next` rule, read heuristically; "
              "observational):"]
    return lines + _text(next_step_rows(recovery_by_next_step(readings), caption=source))


def write_error_csv(events: Sequence[ErrorEvent], path: str | os.PathLike[str]) -> Path:
    """One row per error event (CSV_COLUMNS), each naming its file, kind of evidence and model (observational
    data, like the dashboard): arguments as canonical JSON (or the raw string), outcomes as true/false/empty, and
    the contract rubric's verdict on each rule (rubric_heuristic_*, a heuristic reading). Every cell is redacted
    (masking.shown): the rubric judges the data's own text, the file never holds a key. Returns the path written."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    def flag(value: bool | None) -> str:
        return "" if value is None else str(value).lower()
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        for ev in events:
            args = ev.arguments if isinstance(ev.arguments, str) else canonical(ev.arguments)
            judgement = judge_event(ev)
            row = [ev.file, ev.evidence, ev.model or "", ev.episode, ev.task_id or "",
                   "" if ev.trial is None else ev.trial, ev.ordinal, ev.tool, args, ev.text, ev.masked,
                   ev.basis, ev.next.action, ev.next.tool or "",
                   flag(ev.next.has_text), flag(ev.next.user_first), flag(ev.correct),
                   "" if ev.reward is None else ev.reward, *(judgement.verdict(rule).status for rule in RULES)]
            writer.writerow([shown(c) if isinstance(c, str) else c for c in row])
    return out
