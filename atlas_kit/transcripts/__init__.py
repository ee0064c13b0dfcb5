"""Transcripts from anywhere, one model: read real agents' logs (tau-bench, tau2-bench, AgentDojo, Anthropic, OpenAI,
inspect_ai, atlas_kit's own results), each episode counted once, find every tool error that reached the model, what
the model did next, and recovery with its interval, per model and paired by task when several are read. Rows and
text only; charts are transcript_charts.py's. Chapter "Errors in the wild".
"""
from __future__ import annotations

from .analysis import error_events, next_action_counts
from .model import Episode, TranscriptError, Transcripts
from .rates import paired_by_task, pass_hat_k, recovery_by_model
from .readers.files import read_transcripts
from .report import dashboard, source_line
from .shipped import agentdojo_runs, tau_bench_airline

__all__ = ["Episode", "TranscriptError", "Transcripts", "agentdojo_runs", "dashboard", "error_events",
    "next_action_counts", "paired_by_task", "pass_hat_k", "read_transcripts", "recovery_by_model", "source_line",
    "tau_bench_airline"]
