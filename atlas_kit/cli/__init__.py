"""`atlas-kit`: one command, a subcommand a module (command.py builds the parser and runs one; args.py and
paths.py hold what they share). `main` is the console script's entry point (pyproject.toml)."""
from __future__ import annotations

from .command import main

__all__ = ["main"]
