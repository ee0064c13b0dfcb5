"""The real transcripts atlas_kit ships: tau-bench's 200 gpt-4o airline episodes (MIT, copyright 2024 Sierra),
gzipped in transcripts/data/ with their licence, provenance and the policy the agent was given. Paths only;
read them with readers.read_transcripts. Chapter "Errors in the wild".
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DATA", "TAU_BENCH", "Provenance", "tau_bench_airline", "tau_bench_licence", "tau_bench_policy"]

DATA = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Provenance:
    """Where a shipped file came from, exactly: repository, commit, path, licence, and the paper to cite."""

    repository: str
    commit: str
    path: str
    licence: str
    paper: str
    model: str

    @property
    def line(self) -> str:
        """One line for a Sources section or a caption."""
        return (f"{self.repository} @ {self.commit[:12]}, {self.path} ({self.licence}); {self.paper}; "
                f"model {self.model}")


TAU_BENCH = Provenance(repository="sierra-research/tau-bench", commit="59a200c6d575d595120f1cb70fea53cef0632f6b",
                       path="historical_trajectories/gpt-4o-airline.json", licence="MIT, copyright (c) 2024 Sierra",
                       paper="Yao et al., 2024, arXiv 2406.12045", model="gpt-4o")


def _shipped(name: str) -> Path:
    path = DATA / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from this install of atlas_kit; reinstall it (pip install -e .) "
                                "or copy the file from the repository's atlas_kit/transcripts/data/.")
    return path


def tau_bench_airline() -> Path:
    """The gzipped tau-bench gpt-4o airline trajectories (200 episodes); every reader accepts .gz."""
    return _shipped("tau-bench-gpt-4o-airline.json.gz")


def tau_bench_policy() -> Path:
    """The airline policy (Markdown) the agent was given as its system prompt."""
    return _shipped("tau-bench-airline-policy.md")


def tau_bench_licence() -> Path:
    """The MIT licence text that covers the shipped tau-bench files."""
    return _shipped("LICENSE")
