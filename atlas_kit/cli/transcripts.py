"""`atlas-kit transcripts FILE...`: the tool-error dashboard for any agent's logs (tau-bench, tau2-bench, AgentDojo,
Anthropic, OpenAI, inspect_ai, atlas_kit's results), printed, with the CSV of error events and the charts under
--out. The work lives in atlas_kit/transcripts and transcript_charts.py; chapter "Errors in the wild" reads the same
figures.
"""
from __future__ import annotations

import argparse
import errno
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from .args import Commands, _names, _one_line
from .paths import output_argument

if TYPE_CHECKING:
    from ..transcripts import Transcripts

__all__ = ["add_transcripts", "transcripts_command"]

FORMATS = ("auto", "tau-bench", "tau2-bench", "agentdojo", "anthropic", "openai", "inspect", "atlas")


def _transcript_file(text: str) -> Path:
    """`transcripts FILE`: an existing file, or a folder (an AgentDojo runs folder)."""
    path = Path(text)
    if not (path.is_file() or path.is_dir()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a file or folder; give transcript files (JSON, JSONL, .gz, "
                                         "or an inspect .eval log) or an AgentDojo runs folder.")
    return path


def add_transcripts(sub: Commands) -> None:
    """Register the `transcripts` command on the CLI's subparsers."""
    cmd = sub.add_parser(
        "transcripts", help="the tool-error dashboard for real transcripts: errors, next actions, recovery with CIs",
        description="Read agent transcripts, find every tool error that reached the model and what the model did "
                    "next, and print recovery (correct | an error) beside success without errors, with Wilson 95% "
                    "intervals and Fisher's exact test. Observational: errors come with harder tasks.",
        epilog="exit codes: 0 done; 2 a file could not be read, or --out could not be written. Example: "
               "atlas-kit transcripts gpt-4o-airline.json --out results/transcripts/; atlas-kit transcripts "
               "agentdojo/runs (a runs folder)")
    cmd.add_argument("files", nargs="+", type=_transcript_file, metavar="FILE",
                     help="transcript files: tau-bench trajectories, tau2-bench results, AgentDojo runs (a runs "
                          "folder, a run file or a bundle), Anthropic or OpenAI transcripts (chat, function calling or "
                          "Responses API items; JSON, JSONL, gzipped or not), inspect_ai logs, atlas_kit results or "
                          "MCP logs")
    cmd.add_argument("--format", choices=FORMATS, default="auto",
                     help="the files' format (default: auto, which looks at each file and says what it chose)")
    cmd.add_argument("--skip-tools", type=_names("tool", "think"), default=[], metavar="LIST",
                     help="tools that are not actions, comma-separated (e.g. think, tau-bench's note-to-self tool): "
                          "their calls are passed over when finding the next action after an error (default: none)")
    output_argument(cmd, "--out", kind="folder", metavar="DIR",
                    help="also write DIR/transcripts_errors.csv (one row per error) and the charts as PNG")
    cmd.set_defaults(func=transcripts_command)


def transcripts_command(args: argparse.Namespace) -> int:
    """Exit 0 when the dashboard was printed (and written); 2 when a file could not be read or --out written."""
    from ..transcripts import TranscriptError, dashboard, read_transcripts

    try:
        transcripts = read_transcripts(args.files, format=args.format)
    except TranscriptError as err:
        print(f"atlas-kit transcripts: error: {_one_line(err)}", file=sys.stderr)
        return 2
    print(dashboard(transcripts, skip=args.skip_tools))
    if args.out is None:
        return 0
    try:
        written = _write_out(transcripts, args.out, args.skip_tools)
    except OSError as err:
        print(f"atlas-kit transcripts: error: --out {args.out}: {_one_line(err)}; nothing was written there.",
              file=sys.stderr)
        return 2
    print("\n" + "\n".join(f"wrote {path}" for path in written))
    return 0


def _write_out(transcripts: Transcripts, out: Path, skip: list[str]) -> list[Path]:
    """The CSV and the charts, all or none: written into a hidden folder in `out` first, then each moved into place
    (a move replaces a link with the file, never writes through it). A failure leaves `out` as it was."""
    from ..face.transcript_charts import save_transcript_charts
    from ..transcripts import error_events, write_error_csv

    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out, prefix=".transcripts-"))
    try:
        made = [write_error_csv(error_events(transcripts.episodes, skip=skip), staging / "transcripts_errors.csv"),
                *save_transcript_charts(transcripts, staging, skip=skip)]
        for path in made:
            target = out / path.name
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(errno.EISDIR, "a folder stands where a file goes", str(target))
        for path in made:
            os.replace(path, out / path.name)
        return [out / path.name for path in made]
    finally:
        shutil.rmtree(staging, ignore_errors=True)
