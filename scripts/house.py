"""How the house stands against issue 28's targets: atlas_kit/'s top-level entries, the `Any`s in function
signatures (per file and in total), the functions over 40 lines and the modules over 300 lines.

Read from the source with `ast` (nothing is imported). A function's length is its whole span, nested helpers
included; an `Any` counts once per occurrence in a parameter's or a return's annotation (quoted ones too).
tests/test_package.py runs `count` and asserts the one target left (`Any` in signatures); the lengths are listed.

Usage: python scripts/house.py [--package PATH]
"""
from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "atlas_kit"

LONG_FUNCTION = 40
"""A function longer than this many lines is listed."""
LONG_MODULE = 300
"""A module longer than this many lines is listed."""
TARGETS = {"Any in signatures": 79}
"""The one figure the tests hold, as the largest it may reach (issue 28). Lengths are a guide in the style, not a gate
(issue 49: a file is split by idea, never to pass a number); they are listed so a long one is seen."""


@dataclass(frozen=True)
class LongFunction:
    """A function over LONG_FUNCTION lines: where it is, its name and its length."""

    path: str
    name: str
    lines: int


@dataclass
class House:
    """The figures for one package: `anys` maps a file (relative to the package) to its count."""

    entries: list[str] = field(default_factory=list)
    anys: dict[str, int] = field(default_factory=dict)
    long_functions: list[LongFunction] = field(default_factory=list)
    long_modules: dict[str, int] = field(default_factory=dict)

    @property
    def any_total(self) -> int:
        """Every `Any` in a signature, in every file."""
        return sum(self.anys.values())

    def figures(self) -> dict[str, int]:
        """The four figures TARGETS bounds, by the same names."""
        return {"top-level entries": len(self.entries), "Any in signatures": self.any_total,
                "functions over 40 lines": len(self.long_functions), "modules over 300 lines": len(self.long_modules)}


def _anys(node: ast.AST) -> int:
    """How many times `Any` (or `typing.Any`) is named in an annotation, reading quoted annotations too."""
    found = 0
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any" or isinstance(sub, ast.Attribute) and sub.attr == "Any":
            found += 1
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                found += _anys(ast.parse(sub.value, mode="eval"))
            except SyntaxError:
                pass
    return found


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    yield from (arg.annotation for arg in every if arg.annotation is not None)
    if function.returns is not None:
        yield function.returns


def top_level_entries(package: Path) -> list[str]:
    """The entries a reader sees at the top of the package: no private modules, no data files (as
    tests/test_package.py counts them)."""
    return sorted(e.name for e in package.iterdir()
                  if not e.name.startswith((".", "_")) and e.suffix not in (".json", ".typed"))


def count(package: Path = PACKAGE) -> House:
    """The figures for `package` (atlas_kit by default)."""
    house = House(entries=top_level_entries(package))
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        source = path.read_text()
        if (lines := len(source.splitlines())) > LONG_MODULE:
            house.long_modules[rel] = lines
        anys = 0
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                anys += sum(_anys(a) for a in _annotations(node))
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LONG_FUNCTION:
                    house.long_functions.append(LongFunction(rel, node.name, length))
        if anys:
            house.anys[rel] = anys
    return house


def report(house: House) -> str:
    """The figures as text: each list, then each figure beside its target."""
    lines = [f"top-level entries ({len(house.entries)}): {', '.join(house.entries)}", "", "Any in signatures:"]
    lines += [f"  {n:4d}  {path}" for path, n in sorted(house.anys.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += [f"  {house.any_total:4d}  in all", "", f"functions over {LONG_FUNCTION} lines:"]
    lines += [f"  {f.lines:4d}  {f.path}  {f.name}" for f in house.long_functions] or ["  none"]
    lines += ["", f"modules over {LONG_MODULE} lines:"]
    lines += [f"  {n:4d}  {path}" for path, n in house.long_modules.items()] or ["  none"]
    lines += ["", "against issue 28's targets (at most):"]
    lines += [f"  {name}: {value}" + (f" (target {TARGETS[name]}){'' if value <= TARGETS[name] else '  OVER'}"
                                      if name in TARGETS else " (a guide, not a target)")
              for name, value in house.figures().items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the report for atlas_kit (or --package PATH); the exit code is 1 when a figure is over its target."""
    parser = argparse.ArgumentParser(description="How atlas_kit stands against issue 28's targets.")
    parser.add_argument("--package", type=Path, default=PACKAGE, help="the package folder (default: atlas_kit/)")
    house = count(parser.parse_args(argv).package)
    print(report(house))
    return int(any(value > TARGETS.get(name, value) for name, value in house.figures().items()))


if __name__ == "__main__":
    raise SystemExit(main())
