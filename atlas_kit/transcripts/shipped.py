"""The real transcripts atlas_kit ships, gzipped in transcripts/data/ with their licences and provenance: tau-bench's
200 gpt-4o airline episodes (MIT, copyright 2024 Sierra), and AgentDojo's benign runs, 21 models on the same 97 tool
tasks (MIT, copyright 2024 Debenedetti et al.). Paths and provenance only; read them with readers.read_transcripts.
Chapter "Errors in the wild".
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Provenance:
    """Where a shipped file came from, exactly: repository, commit, path, licence, the paper to cite, and the model
    (or, for many models, where each episode names its own). `sha256` is the published file's, uncompressed, when
    it was one file ("" otherwise): a file with those bytes is that file, whatever its name."""

    repository: str
    commit: str
    path: str
    licence: str
    paper: str
    model: str
    sha256: str = ""

    @property
    def line(self) -> str:
        """One line for a Sources section or a caption."""
        return (f"{self.repository} @ {self.commit[:12]}, {self.path} ({self.licence}); {self.paper}; "
                f"model {self.model}")


TAU_BENCH = Provenance(repository="sierra-research/tau-bench", commit="59a200c6d575d595120f1cb70fea53cef0632f6b",
                       path="historical_trajectories/gpt-4o-airline.json", licence="MIT, copyright (c) 2024 Sierra",
                       paper="Yao et al., 2024, arXiv 2406.12045", model="gpt-4o",
                       sha256="e9e6c0297660c537f83d4fd9c476ce7a9a86ecd2784874b7bfc13be598e37bfa")

AGENTDOJO = Provenance(repository="sequrity-ai/agentdojo (carrying ethz-spylab/agentdojo's published runs)",
                       commit="9272bf1e0c1c441600264324f481b97fb54db60b",
                       path="runs/<model>/<suite>/<user_task>/none/none.json",
                       licence="MIT, copyright (c) 2024 Edoardo Debenedetti, Jie Zhang, Mislav Balunovic, "
                               "Luca Beurer-Kellner, Marc Fischer and Florian Tramèr",
                       paper="Debenedetti et al., 2024, arXiv 2406.13352",
                       model="21 models, each run naming its own (pipeline_name)")

PUBLISHED: tuple[Provenance, ...] = (TAU_BENCH,)
"""The published files whose bytes atlas_kit knows (`sha256`): a file that holds no model name is labelled from
the provenance when its bytes are one of these."""


def published(data: bytes) -> Provenance | None:
    """The published file these bytes (uncompressed) are, or None."""
    digest = hashlib.sha256(data).hexdigest()
    return next((p for p in PUBLISHED if p.sha256 == digest), None)


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


def agentdojo_runs() -> Path:
    """AgentDojo's 2,037 benign runs (21 models x 97 tasks), one gzipped JSONL: each line a run file's relative path
    and its text verbatim (readers/agentdojo.py reads it as it reads the runs folder)."""
    return _shipped("agentdojo-benign-runs.jsonl.gz")


def agentdojo_licence() -> Path:
    """The MIT licence text that covers the shipped AgentDojo runs."""
    return _shipped("agentdojo-LICENSE")
