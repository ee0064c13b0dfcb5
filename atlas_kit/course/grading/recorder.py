"""Record what a watched module binds the moment its import completes, before anything else can change it.

The checking kernel (judge.py) compares what atlas_kit's modules bind before and after a function answer runs.
Importing every module up front to have them all in that baseline cost about 1.4 s of CPU a kernel (the SDK,
which most chapters' checks never touch). Instead, a module imported later, by a check or by the answer, goes
through this finder first in `sys.meta_path`: its own loader runs it, and what it binds is recorded as soon as it
has run, so a patch made afterwards is a change like any other. The finder is itself in the baseline's
`sys.meta_path`, so removing it is a change too; a watched module that reaches `sys.modules` without it (built by
hand, or put there by name) is one the judge never saw imported, and is reported as such.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Callable, Sequence

_FILE_LOADERS = (importlib.machinery.SourceFileLoader, importlib.machinery.SourcelessFileLoader)


class ImportRecorder(importlib.abc.MetaPathFinder):
    """For each module `watched(name)` accepts, find it as the rest of `sys.meta_path` would, and call each of
    `records` with it as soon as its loader has run it. A module another kind of loader would load is found but
    not recorded (none of atlas_kit's is one)."""

    def __init__(self, watched: Callable[[str], bool]) -> None:
        self.watched = watched
        self.records: list[Callable[[ModuleType], None]] = []

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not self.watched(fullname):
            return None
        spec: importlib.machinery.ModuleSpec | None = None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if isinstance(finder, ImportRecorder) or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None:
            return None
        loader = spec.loader
        if isinstance(loader, _FILE_LOADERS):  # a fresh loader for this spec alone: its exec_module is ours to wrap
            run, records = loader.exec_module, list(self.records)

            def exec_module(module: ModuleType) -> None:
                run(module)
                for record in records:
                    record(module)

            loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install(watched: Callable[[str], bool], record: Callable[[ModuleType], None]) -> ImportRecorder:
    """Call `record` with each module `watched` accepts as its import completes, from now on. One recorder serves
    every caller in a process, first in `sys.meta_path`, with the first caller's `watched` (a checking kernel has
    one caller: judge.prepare)."""
    mine = next((finder for finder in sys.meta_path if isinstance(finder, ImportRecorder)), None)
    if mine is None:
        mine = ImportRecorder(watched)
        sys.meta_path.insert(0, mine)
    mine.records.append(record)
    return mine
