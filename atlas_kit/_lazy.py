"""A package's public names, each written once, loaded on first use (PEP 562).

A product package (models, experiments, the bridges, the face, the course) lists its names once, as type-only
imports: `if TYPE_CHECKING:` then `from .choose import choose_model as choose_model` (what a type checker reads).
`exports(__name__, __file__)` reads that block and gives the package its `__getattr__`, `__dir__` and `__all__`, so
importing one module of a package never loads the rest of it (the SDK, matplotlib, the MCP SDK). The core
(atlas_kit/__init__.py) imports eagerly. ARCHITECTURE.md shows where each package sits.
"""
from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from typing import Callable


def exports(package: str, init_file: str) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """`__getattr__`, `__dir__` and `__all__` for `package`, from the type-only imports in its `__init__.py`."""
    where: dict[str, str] = {}
    for node in ast.parse(Path(init_file).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.level:
                    base = package.split(".")[: len(package.split(".")) - (statement.level - 1)]
                    module = ".".join([*base, *([statement.module] if statement.module else [])])
                    where.update((alias.asname or alias.name, module) for alias in statement.names)

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}; its public names are in "
                                 f"{package}.__all__, and every module's own names import from that module.")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__, sorted(where)
