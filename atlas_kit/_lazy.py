"""Lazy re-exports for a package's `__init__` (PEP 562): a public name is imported from its module on first use.

`atlas-kit --help`, a kernel that needs one chapter's helpers, and papermill loading its engine never pay for
the rest of the package. Every `__init__` lists the same names for the type checker under TYPE_CHECKING;
tests/test_package.py checks that the two lists agree and that every name resolves.
"""
from __future__ import annotations

import importlib
import sys
from typing import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: `where` maps each public name to its module (relative)."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}; its public names are in "
                                 f"{package}.__all__.")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
