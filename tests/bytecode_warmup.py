"""Bytecode for a fresh clone, made once before the xdist workers start (the root conftest.py calls `warm`).

In a fresh clone nothing is compiled yet, and the three workers each collect the whole suite at the same moment:
each compiled the package's sources and rewrote the asserts of every test module (pytest's cached, rewritten
bytecode), about 5 s of CPU a worker, the same work three times over, before a test ran. The controlling process
does it once here; the workers and every interpreter they start then find the bytecode. Where it is already
fresh this costs a few stat calls.

The rewrite goes through pytest's own assertion rewriter, which has no public API: if a later pytest moves these
internals, `warm` rewrites nothing and each worker rewrites its test modules as before. No result can change: a
worker still checks each cached file against its source and rewrites any that does not match.
"""
from __future__ import annotations

import compileall
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def warm(config: pytest.Config, root: Path = ROOT) -> int:
    """Compile the package and the tests' helpers, and rewrite the test modules; return how many were rewritten."""
    compileall.compile_dir(root / "atlas_kit", quiet=2)  # quiet=2: a read-only tree says nothing
    patterns = [*config.getini("python_files"), "conftest.py"]  # what pytest collects, so what it rewrites
    rewritten: list[Path] = []
    for path in sorted(p for p in (root / "tests").rglob("*.py") if "__pycache__" not in p.parts):
        if any(fnmatch(path.name, pattern) for pattern in patterns):
            rewritten.append(path)
        else:
            compileall.compile_file(path, quiet=2)  # a helper: imported as it is
    try:
        from _pytest.assertion import rewrite
        from _pytest.assertion.rewrite import assertstate_key

        state = config.stash[assertstate_key]
    except (ImportError, AttributeError, KeyError):  # another pytest's internals, or asserts not rewritten (-p no:...)
        return 0
    done = 0
    for path in rewritten:
        try:
            cache = rewrite.get_cache_dir(path)
            pyc = cache / (path.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(path, pyc) is not None:
                continue
            if not rewrite.try_makedirs(cache):
                return done  # a read-only tree: the workers would not write either
            source, code = rewrite._rewrite_test(path, config)
            rewrite._write_pyc(state, code, source, pyc)
            done += 1
        except SyntaxError:
            continue  # the worker that imports it reports it
        except (AttributeError, TypeError, ValueError, OSError):
            return done  # internals of another shape, or a tree it cannot write
    return done
