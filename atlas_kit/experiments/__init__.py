"""Experiments: sweeps of conditions x tickets x trials, graded and appended to crash-safe results as they finish.

What a sweep runs (episodes), running it (sweep) and guarding a live one (guard), the results file (results),
what a caption says of its data (captions), recovery and its intervals (metrics), paired and exact tests (stats),
the implicit-failure cells (implicit), published designs (presets) and their leak audit (leaks), and the Message
Batches path (batch/). Chapters 11, 14.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .episodes import named_profiles as named_profiles
    from .guard import SweepStopped as SweepStopped
    from .metrics import groups as groups, recovery as recovery
    from .presets import run_preset as run_preset
    from .results import source_label as source_label
    from .spec import SweepSpec as SweepSpec
    from .sweep import run_experiment as run_experiment

__getattr__, __dir__, __all__ = exports(__name__, __file__)
