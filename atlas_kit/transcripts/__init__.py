"""Transcripts from anywhere, one model: read real agents' logs (tau-bench, tau2-bench, AgentDojo, Anthropic, OpenAI,
inspect_ai, atlas_kit's own results), each episode counted once, find every tool error that reached the model, what
the model did next, and recovery with its interval, per model and paired by task when several are read. Rows and
text only; charts are transcript_charts.py's. Chapter "Errors in the wild".
"""
from __future__ import annotations

from .excerpt import EXCERPT_COLUMNS, ended, excerpt_rows, turn_text
from .analysis import (NEXT_ACTIONS, ActionCount, EpisodeRow, ErrorEvent, LoopRow, ModelActions, Next, NextAction,
    episode_rows, error_events, find_episode, hit_error, loops, next_action, next_action_counts, next_actions_by_model,
    window)
from .comparison import model_action_rows, model_rows, paired_rows, pass_k_rows
from .groups import ErrorGroup, error_groups
from .labels import MODEL_UNKNOWN, p_text
from .masking import MASKED_CHARS, mask
from .model import (FORMATS, Copy, Episode, ErrorBasis, Evidence, FileRead, Format, ModelText, Outcome, Summary,
    ToolCall, ToolResult, TranscriptError, Transcripts, Turn, UserText)
from .readers import READERS, FormatChoice, Sniffed, read_file, read_transcripts, record_episodes, run_episode, sniff
from .rates import (ModelRecovery, PairedRecovery, PassK, Recovery, TaskSplit, paired_by_task, pass_hat_k, recovery,
    recovery_by_model, task_split)
from .report import (ACTION_LABELS, CSV_COLUMNS, OBSERVATIONAL, copies_line, dashboard, group_rows, next_action_rows,
    next_step_rows, rubric_rows, source_line, summary_rows, task_split_rows, write_error_csv)
from .rubric import (HEURISTIC, RULE_LABELS, NextStepRecovery, RubricReading, RuleCount, branch_taken, judge_event,
    read_by_rubric, recovery_by_next_step, rule_counts)
from .shipped import (AGENTDOJO, TAU_BENCH, Provenance, agentdojo_licence, agentdojo_runs, tau_bench_airline,
    tau_bench_licence, tau_bench_policy)

__all__ = [
    "ACTION_LABELS", "AGENTDOJO", "ActionCount", "CSV_COLUMNS", "Copy", "EXCERPT_COLUMNS", "Episode", "EpisodeRow",
    "ErrorBasis", "ErrorEvent", "ErrorGroup", "Evidence", "FORMATS", "FileRead", "Format", "FormatChoice",
    "HEURISTIC", "LoopRow", "MASKED_CHARS", "MODEL_UNKNOWN", "ModelActions", "ModelRecovery", "ModelText",
    "NEXT_ACTIONS", "Next", "NextAction", "NextStepRecovery", "OBSERVATIONAL", "Outcome", "PairedRecovery", "PassK",
    "Provenance", "READERS", "RULE_LABELS", "Recovery", "RubricReading", "RuleCount", "Sniffed", "Summary",
    "TAU_BENCH", "TaskSplit", "ToolCall", "ToolResult", "TranscriptError", "Transcripts", "Turn", "UserText",
    "agentdojo_licence", "agentdojo_runs", "branch_taken", "copies_line", "dashboard", "ended", "episode_rows",
    "error_events", "error_groups", "excerpt_rows", "find_episode", "group_rows", "hit_error", "judge_event", "loops",
    "mask", "model_action_rows", "model_rows", "next_action", "next_action_counts", "next_action_rows",
    "next_actions_by_model", "next_step_rows", "p_text", "paired_by_task", "paired_rows", "pass_hat_k", "pass_k_rows",
    "read_by_rubric", "read_file", "read_transcripts", "record_episodes", "recovery", "recovery_by_model",
    "recovery_by_next_step", "rubric_rows", "rule_counts", "run_episode", "sniff", "source_line", "summary_rows",
    "task_split", "task_split_rows", "tau_bench_airline", "tau_bench_licence", "tau_bench_policy", "turn_text",
    "window", "write_error_csv",
]
