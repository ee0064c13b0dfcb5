"""Experiments: sweeps of conditions x tickets x trials, graded and appended to crash-safe results as they finish.

What a sweep runs (episodes), running it (sweep) and guarding a live one (guard), the results file (results),
what a caption says of its data (captions), recovery and its intervals (metrics), paired and exact tests (stats),
the implicit-failure cells (implicit), published designs (presets) and their leak audit (leaks), and the Message
Batches path (batch/). Chapters 11, 14.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .sweep import Sweep, run_experiment
    from .spec import SweepOptions, SweepSpec, Via
    from .running import arun_episodes, run_episode, run_offline, run_sync
    from .recording import Take, Tape, check_cassette_path, start_tape, tape_path, write_cassette
    from .leaks import Leak, expected_answers, find_leaks
    from .episodes import (Episode, MAX_EPISODES, check_options, episode_record, episode_session, harness_failure,
        named_profiles, plan, profile_named, whole_number)
    from .guard import (DEFAULT_MAX_COST_USD, Guard, StopCause, SweepInterrupted, SweepRefused, SweepStopped,
        first_request_tokens, max_cost_usd, set_max_cost_usd, spent_in, sweep_estimate)
    from .results import (API_FAILURE, Condition, FIELDS, HARNESS_ERROR, Record, ResultsWriter, check_source,
        episode_key, harness_record, read_records, record_from_run, record_kind, repair, source_label, source_of)
    from .metrics import (Paired, Rate, Use, Z95, api_failures, describe_api_failures, failure_modes, groups,
        paired_recovery, pass_k, per_ticket, recovery, recovery_rows, success, usable, wilson)
    from .stats import (Comparison, EPISODE_FIELDS, PairedDifference, TokensPerSuccess, compare_arms, fisher_exact,
        mcnemar_exact, newcombe_paired, pair_records, paired_difference, paired_rows, tokens_per_success)
    from .implicit import CellRates, cell_name, cell_rows, recovery_by_cell, ticket_cell
    from .presets import (PRESETS, Preset, PresetResult, Published, SELF_REFLECTIVE, assign, audit, preset_estimate,
        preset_rows, published_rows, run_preset)

_WHERE = {
    "API_FAILURE": "results",
    "CellRates": "implicit",
    "Comparison": "stats",
    "Condition": "results",
    "DEFAULT_MAX_COST_USD": "guard",
    "EPISODE_FIELDS": "stats",
    "Episode": "episodes",
    "FIELDS": "results",
    "Guard": "guard",
    "HARNESS_ERROR": "results",
    "Leak": "leaks",
    "MAX_EPISODES": "episodes",
    "PRESETS": "presets",
    "Paired": "metrics",
    "PairedDifference": "stats",
    "Preset": "presets",
    "PresetResult": "presets",
    "Published": "presets",
    "Rate": "metrics",
    "Record": "results",
    "ResultsWriter": "results",
    "SELF_REFLECTIVE": "presets",
    "StopCause": "guard",
    "Sweep": "sweep",
    "SweepInterrupted": "guard",
    "SweepOptions": "spec",
    "SweepRefused": "guard",
    "SweepSpec": "spec",
    "SweepStopped": "guard",
    "Take": "recording",
    "Tape": "recording",
    "TokensPerSuccess": "stats",
    "Use": "metrics",
    "Via": "spec",
    "Z95": "metrics",
    "api_failures": "metrics",
    "arun_episodes": "running",
    "assign": "presets",
    "audit": "presets",
    "cell_name": "implicit",
    "cell_rows": "implicit",
    "check_cassette_path": "recording",
    "check_options": "episodes",
    "check_source": "results",
    "compare_arms": "stats",
    "describe_api_failures": "metrics",
    "episode_key": "results",
    "episode_record": "episodes",
    "episode_session": "episodes",
    "expected_answers": "leaks",
    "failure_modes": "metrics",
    "find_leaks": "leaks",
    "first_request_tokens": "guard",
    "fisher_exact": "stats",
    "groups": "metrics",
    "harness_failure": "episodes",
    "harness_record": "results",
    "max_cost_usd": "guard",
    "mcnemar_exact": "stats",
    "named_profiles": "episodes",
    "newcombe_paired": "stats",
    "pair_records": "stats",
    "paired_difference": "stats",
    "paired_recovery": "metrics",
    "paired_rows": "stats",
    "pass_k": "metrics",
    "per_ticket": "metrics",
    "plan": "episodes",
    "preset_estimate": "presets",
    "preset_rows": "presets",
    "profile_named": "episodes",
    "published_rows": "presets",
    "read_records": "results",
    "record_from_run": "results",
    "record_kind": "results",
    "recovery": "metrics",
    "recovery_by_cell": "implicit",
    "recovery_rows": "metrics",
    "repair": "results",
    "run_episode": "running",
    "run_experiment": "sweep",
    "run_offline": "running",
    "run_preset": "presets",
    "run_sync": "running",
    "set_max_cost_usd": "guard",
    "source_label": "results",
    "source_of": "results",
    "spent_in": "guard",
    "start_tape": "recording",
    "success": "metrics",
    "sweep_estimate": "guard",
    "tape_path": "recording",
    "ticket_cell": "implicit",
    "tokens_per_success": "stats",
    "usable": "metrics",
    "whole_number": "episodes",
    "wilson": "metrics",
    "write_cassette": "recording",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "API_FAILURE", "CellRates", "Comparison", "Condition", "DEFAULT_MAX_COST_USD", "EPISODE_FIELDS", "Episode",
    "FIELDS", "Guard", "HARNESS_ERROR", "Leak", "MAX_EPISODES", "PRESETS", "Paired", "PairedDifference", "Preset",
    "PresetResult", "Published", "Rate", "Record", "ResultsWriter", "SELF_REFLECTIVE", "StopCause", "Sweep",
    "SweepInterrupted", "SweepOptions", "SweepRefused", "SweepSpec", "SweepStopped", "Take", "Tape",
    "TokensPerSuccess", "Use", "Via", "Z95", "api_failures", "arun_episodes", "assign", "audit", "cell_name",
    "cell_rows", "check_cassette_path", "check_options", "check_source", "compare_arms", "describe_api_failures",
    "episode_key", "episode_record", "episode_session", "expected_answers", "failure_modes", "find_leaks",
    "first_request_tokens", "fisher_exact", "groups", "harness_failure", "harness_record", "max_cost_usd",
    "mcnemar_exact", "named_profiles", "newcombe_paired", "pair_records", "paired_difference", "paired_recovery",
    "paired_rows", "pass_k", "per_ticket", "plan", "preset_estimate", "preset_rows", "profile_named",
    "published_rows", "read_records", "record_from_run", "record_kind", "recovery", "recovery_by_cell",
    "recovery_rows", "repair", "run_episode", "run_experiment", "run_offline", "run_preset", "run_sync",
    "set_max_cost_usd", "source_label", "source_of", "spent_in", "start_tape", "success", "sweep_estimate",
    "tape_path", "ticket_cell", "tokens_per_success", "usable", "whole_number", "wilson", "write_cassette",
]
