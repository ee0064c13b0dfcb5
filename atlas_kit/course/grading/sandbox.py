"""A bubblewrap sandbox for one learner's kernel (Linux, Debian's `bubblewrap`, the engine Flatpak uses).

Inside it the whole filesystem is read-only, and the grader's own places are not there at all: $HOME, the
folder the grader was started in, the submissions' folders, the output folder, /tmp, /var and /run (and their
socket files) are empty tmpfs, with only what Python needs bound back read-only (the interpreter, the venv and the
atlas_kit package). What it can write is its own: its folder (fresh and empty for each notebook) and those empty
tmpfs, all gone with it. No network of any kind (a network namespace of its own: no TCP, no abstract Unix
sockets), a PID namespace and a session of its own (so /proc shows no grader process, and no child outlives the
kernel: the namespace ends with it), and limits on address space and file size (with util-linux's `prlimit`,
where it is installed). What is not enforced: CPU time beyond the grader's own time limits, and the read-only
view of system files (/usr, /etc), which stay readable.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MEMORY_BYTES = 8 << 30  # address space of the kernel and everything it starts
FILE_BYTES = 256 << 20  # the largest file it may write

_SYSTEM_HIDDEN = ("/tmp", "/var", "/run")
_SYSTEM_NEEDED = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/proc")
_NAMESPACES = ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session", "--die-with-parent")


@lru_cache(maxsize=1)
def bwrap_works() -> bool:
    """Whether `bwrap` is installed and can make a sandbox here (it needs user or root namespaces)."""
    if not sys.platform.startswith("linux") or shutil.which("bwrap") is None:
        return False
    try:
        done = subprocess.run(["bwrap", *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _install() -> list[Path]:
    """Python's own install: its prefixes (the venv's and the base interpreter's) and the interpreter's folder."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.executable).parent]
    return [p.resolve() for p in dict.fromkeys(paths)]


def _python_paths() -> list[Path]:
    """What the kernel's interpreter reads: its install, every folder on sys.path, and the atlas_kit package."""
    import atlas_kit

    paths = [*_install(), Path(atlas_kit.__file__).resolve().parent]
    paths += [Path(p).resolve() for p in sys.path if p and os.path.isdir(p)]
    return list(dict.fromkeys(paths))


@dataclass(frozen=True)
class Sandbox:
    """One grading run's sandbox, decided once: `prefix(folder)` is the command that runs a kernel in `folder`."""

    hidden: tuple[Path, ...]  # each an empty tmpfs inside
    bound: tuple[Path, ...]  # what Python needs of the hidden places, bound back read-only
    limits: tuple[str, ...]  # prlimit's command, where it is installed

    @classmethod
    def hiding(cls, *places: Path) -> Sandbox:
        """A sandbox that also hides `places` (the submissions, the output folder), beside the usual ones."""
        home = Path(os.path.expanduser("~"))
        found = [p.resolve() for p in (home, Path.cwd(), *places, *map(Path, _SYSTEM_HIDDEN)) if p.is_dir()]
        python = _install()
        # Never hid: the system (a grader started in /usr would hide libc) or a place inside Python's own install
        # (one started in the venv's bin/ would hide the interpreter).
        hidden = tuple(dict.fromkeys(p for p in found if not any(Path(d).resolve().is_relative_to(p)
                                                                 for d in _SYSTEM_NEEDED)
                                     and not any(p.is_relative_to(q) for q in python)))
        # Bound back only where hidden: a path that holds a hidden place would bring it back.
        bound = tuple(path for path in _python_paths() if any(path.is_relative_to(h) for h in hidden)
                      and not any(h.is_relative_to(path) for h in hidden))
        limits = ("prlimit", f"--as={MEMORY_BYTES}", f"--fsize={FILE_BYTES}", "--") if shutil.which("prlimit") else ()
        return cls(hidden, bound, limits)

    def prefix(self, folder: Path) -> tuple[str, ...]:
        folder = folder.resolve()
        args = [*self.limits, "bwrap", *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for place in self.hidden:
            args += ["--tmpfs", str(place)]
        for path in self.bound:
            args += ["--ro-bind", str(path), str(path)]
        # The grader's pid means nothing in the kernel's PID namespace, where ipykernel would read it as its parent
        # gone; --die-with-parent ties the two together instead.
        args += ["--bind", str(folder), str(folder), "--chdir", str(folder), "--unsetenv", "JPY_PARENT_PID", "--"]
        return tuple(args)
