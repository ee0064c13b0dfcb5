"""Transcripts from anywhere, one model: read real agents' logs (tau-bench, Anthropic, OpenAI, inspect_ai, atlas_kit's
own results), find every tool error that reached the model, what the model did next, and recovery with its
interval. Rows and text only; charts are transcript_charts.py's. Chapter "Errors in the wild".
"""
from __future__ import annotations

from .excerpt import EXCERPT_COLUMNS, ended, excerpt_rows, turn_text
from .analysis import (NEXT_ACTIONS, ActionCount, EpisodeRow, ErrorEvent, LoopRow, Next, NextAction, episode_rows,
    error_events, find_episode, hit_error, loops, next_action, next_action_counts, window)
from .groups import ErrorGroup, error_groups
from .masking import MASKED_CHARS, mask
from .model import (FORMATS, Episode, ErrorBasis, Evidence, FileRead, Format, ModelText, Outcome, Summary, ToolCall,
    ToolResult, TranscriptError, Transcripts, Turn, UserText)
from .readers import READERS, FormatChoice, Sniffed, read_file, read_transcripts, record_episodes, run_episode, sniff
from .rates import Recovery, TaskSplit, recovery, task_split
from .report import (ACTION_LABELS, CSV_COLUMNS, OBSERVATIONAL, dashboard, group_rows, next_action_rows,
    next_step_rows, rubric_rows, source_line, summary_rows, task_split_rows, write_error_csv)
from .rubric import (HEURISTIC, RULE_LABELS, NextStepRecovery, RubricReading, RuleCount, branch_taken, judge_event,
    read_by_rubric, recovery_by_next_step, rule_counts)
from .shipped import TAU_BENCH, Provenance, tau_bench_airline, tau_bench_licence, tau_bench_policy

__all__ = [
    "ACTION_LABELS", "CSV_COLUMNS", "EXCERPT_COLUMNS", "HEURISTIC", "MASKED_CHARS", "RULE_LABELS", "ActionCount", "Episode",
    "EpisodeRow", "ErrorBasis", "ErrorEvent", "ErrorGroup", "Evidence", "FORMATS", "FileRead", "Format", "FormatChoice",
    "LoopRow", "ModelText", "NEXT_ACTIONS", "Next", "NextAction", "NextStepRecovery", "OBSERVATIONAL", "Outcome",
    "Provenance", "READERS", "Recovery", "RubricReading", "RuleCount", "TaskSplit", "Sniffed", "Summary", "TAU_BENCH", "ToolCall",
    "ToolResult", "TranscriptError", "Transcripts", "Turn", "UserText", "branch_taken", "dashboard", "ended", "episode_rows",
    "error_events", "error_groups", "excerpt_rows", "find_episode", "group_rows", "hit_error", "judge_event", "loops",
    "mask", "next_action", "next_action_counts", "next_action_rows", "next_step_rows", "read_by_rubric", "read_file",
    "read_transcripts", "record_episodes", "recovery", "recovery_by_next_step", "rubric_rows", "rule_counts",
    "run_episode", "sniff", "source_line", "summary_rows", "task_split", "task_split_rows", "tau_bench_airline", "tau_bench_licence",
    "tau_bench_policy", "turn_text", "window", "write_error_csv",
]
