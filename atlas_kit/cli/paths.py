"""Where a command writes: each output option is declared with `output_argument`, and `output_problem` checks all of
a parsed command line's outputs before the command does any work, so a folder that is a file, a path under a file,
a folder no one can write to, or one in /sys or /proc is one line and exit 2, never a traceback at the end.

Checked, not tried: nothing is created, so a command refused for another reason leaves no folder behind. A write
that fails later all the same (a full disk) is each command's own one line. atlas-kit is chapter 11's.
"""
from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .args import _one_line, _path, _shown

__all__ = ["Output", "file_problem", "folder_problem", "output_argument", "output_problem"]

# The kernel's own filesystems: a folder there cannot hold results (as root, os.access says yes all the same).
_KERNEL_FS = frozenset({"proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs", "pstore", "bpf",
                        "configfs", "efivarfs", "binfmt_misc", "fusectl"})
_MOUNTS = Path("/proc/self/mounts")


@dataclass(frozen=True)
class Output:
    """An output option: its flag, where argparse keeps it, and whether it names a folder or a file."""

    flag: str
    dest: str
    kind: Literal["folder", "file"]


def output_argument(parser: argparse.ArgumentParser, flag: str, *, kind: Literal["folder", "file"],
                    default: str | None = None, metavar: str, help: str) -> None:
    """Add `flag` to `parser` as an output: a path (a default too), checked by output_problem before the command
    runs."""
    action = parser.add_argument(flag, type=_path, default=default, metavar=metavar, help=help)
    declared: tuple[Output, ...] = parser.get_default("outputs") or ()
    parser.set_defaults(outputs=(*declared, Output(flag, action.dest, kind)))


def output_problem(args: argparse.Namespace) -> str:
    """The one line (without the command's name) saying why an output of `args` cannot be written, or ""."""
    for out in getattr(args, "outputs", ()):
        value = getattr(args, out.dest, None)
        if value is None:
            continue
        problem = folder_problem(Path(value)) if out.kind == "folder" else file_problem(Path(value))
        if problem:
            return f"{out.flag} {_shown(os.fspath(value))}: {problem}"
    return ""


def folder_problem(folder: Path) -> str:
    """Why results cannot be written into `folder` (made if missing), or "" when they can."""
    try:
        if folder.exists() and not folder.is_dir():
            return "is a file; give a folder for the results."
        return _ancestor_problem(folder, "folder")
    except (OSError, ValueError) as err:  # a name too long to look up, a NUL byte
        return f"cannot be looked up ({_one_line(err)}); give another folder."


def file_problem(path: Path) -> str:
    """Why a file cannot be written at `path` (its folders made if missing), or "" when it can."""
    try:
        if path.is_dir():
            return "is a folder; give the path of a file (in it, or elsewhere)."
        if path.exists() and not os.access(path, os.W_OK):
            return "is not writable; give a file you can write to."
        return _ancestor_problem(path.parent, "file")
    except (OSError, ValueError) as err:
        return f"cannot be looked up ({_one_line(err)}); give another file."


def _ancestor_problem(folder: Path, kind: str) -> str:
    """What stops a `kind` being made in `folder`, judged at its nearest folder that exists."""
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{_shown(os.fspath(existing))} is a file, so the {kind} cannot be made under it; give another {kind}."
    system = _kernel_filesystem(existing)
    if system is not None:
        return (f"{_shown(system)} is the kernel's own filesystem, where no {kind} can be written; give a {kind} on "
                "your disk.")
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        return f"{_shown(os.fspath(existing))} is on a read-only filesystem; give a {kind} you can write to."
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{_shown(os.fspath(existing))} is not writable; give a {kind} you can write to."
    return ""


def _kernel_filesystem(folder: Path) -> str | None:
    """The mount point of the kernel filesystem (/proc, /sys, a cgroup) `folder` is on, or None (also where the mount
    table cannot be read: not Linux)."""
    try:
        table = _MOUNTS.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    where, best = os.path.realpath(folder), ("", "")
    for line in table:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1])  # "\040" is a space
        inside = where == point or where.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):  # the deepest mount holding it; a later one hides an earlier
            best = (point, fields[2])
    return best[0] if best[1] in _KERNEL_FS else None
