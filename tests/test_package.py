from __future__ import annotations

import ast
from pathlib import Path

import pytest

import atlas_kit

PKG = Path(atlas_kit.__file__).parent

def test_all_is_sorted_and_complete():
    assert atlas_kit.__all__ == sorted(atlas_kit.__all__)
    for name in atlas_kit.__all__:
        assert hasattr(atlas_kit, name), name
    public = {n for n in vars(atlas_kit) if not n.startswith("_") and not isinstance(getattr(atlas_kit, n), type(atlas_kit))}
    public.discard("annotations")
    assert public <= set(atlas_kit.__all__), public - set(atlas_kit.__all__)


def _imports(path: Path, rel: Path | None = None) -> list[tuple[str, int]]:
    """(the atlas_kit module imported, line) for every relative import in `path`, wherever it sits
    (module level, inside a function, under TYPE_CHECKING): all of them are dependencies.
    `rel` is the file's place in the package (default: where it is under atlas_kit/)."""
    rel = rel or path.relative_to(PKG)
    package = list(rel.parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level and node.level - 1 <= len(package):
            names = [*package[: len(package) - (node.level - 1)], *(node.module.split(".") if node.module else [])]
            if node.module:
                found.append((".".join(names), node.lineno))
            else:  # `from . import ch00`: each name is a module (or a name in the package itself)
                found.extend((".".join([*names, alias.name]), node.lineno) for alias in node.names)
    return found


def _top(dotted: str) -> str:
    return dotted.split(".")[0] if dotted else "__init__"


def _module_of(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("")
    parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
    return ".".join(parts)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in `graph` (module -> the modules it imports), as a path that ends where it began."""
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> list[str] | None:
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                return [*stack[stack.index(t):], m, t] if t in stack else [m, t]
            if t not in state and (found := visit(t, [*stack, m])):
                return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m, [])):
            return found
    return None


def test_no_import_cycles():
    modules = {_module_of(p): p for p in PKG.rglob("*.py")}
    graph = {m: {t if t in modules else t.rsplit(".", 1)[0] for t, _ in _imports(p)} for m, p in modules.items()}
    graph = {m: {t for t in ts if t in modules and t != m} for m, ts in graph.items()}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_check_finds_a_cycle_through_a_lazy_import():
    assert _cycle({"checks": {"checks.ch00"}, "checks.ch00": {"checks", "errors"}, "errors": set()}) == [
        "checks", "checks.ch00", "checks"]
    assert _cycle({"checks": {"checks.ch00", "checks.registry"}, "checks.ch00": {"checks.registry"},
                   "checks.registry": set()}) is None


def _packages() -> list[str]:
    return sorted(_module_of(p) for p in PKG.rglob("__init__.py"))


def test_every_exported_name_has_a_docstring():
    import importlib

    missing = []
    for name in _packages():
        if name.startswith(("bridges.inspect", "course.grading")):
            continue  # optional extras and the kernel-side grader load their own heavy dependencies
        package = importlib.import_module(f"atlas_kit.{name}" if name else "atlas_kit")
        for export in package.__all__:
            value = getattr(package, export)
            if (callable(value) or isinstance(value, type)) and getattr(value, "__module__", "").startswith("atlas_kit"):
                if not (value.__doc__ or "").strip():
                    missing.append(f"{name or 'atlas_kit'}.{export}")
    assert not missing, f"exported without a docstring: {', '.join(missing)}"


def test_every_module_opens_with_a_docstring():
    for path in PKG.rglob("*.py"):
        if path.name == "__main__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 20, f"{path.relative_to(PKG)} needs a 2-4 line docstring"


def _declared() -> dict[str, list[str]]:
    """Every `__all__` in the package, by module: the names it declares public."""
    found = {}
    for path in PKG.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                found[_module_of(path)] = list(ast.literal_eval(node.value)) if node.value is not None else []
            if any(isinstance(t, ast.Tuple) and "__all__" in [e.id for e in t.elts if isinstance(e, ast.Name)]
                   for t in targets):  # a lazy package: its names are its type-only imports
                import importlib

                name = _module_of(path)
                found[name] = importlib.import_module(f"atlas_kit.{name}" if name else "atlas_kit").__all__
    return found


def test_the_public_surface_is_small_and_declared_only_by_packages():
    declared = _declared()
    assert set(declared) <= set(_packages()), f"only a package's __init__ declares __all__: {set(declared) - set(_packages())}"
    names = {n for ns in declared.values() for n in ns}
    print(f"public names: {len(names)} distinct, {len(declared[''])} at the top; __init__ lines: "
          f"{sum(len(p.read_text().splitlines()) for p in PKG.rglob('__init__.py'))}")
    assert len(declared[""]) <= 40 and len(names) <= 150
    assert sum(len(p.read_text().splitlines()) for p in PKG.rglob("__init__.py")) <= 400


def test_each_package_s_names_resolve_to_what_its_modules_define():
    import importlib

    for name, exported in _declared().items():
        package = importlib.import_module(f"atlas_kit.{name}" if name else "atlas_kit")
        assert exported == sorted(exported), f"{name or 'atlas_kit'}: __all__ is sorted"
        for export in exported:
            value = getattr(package, export)
            assert not isinstance(value, type(atlas_kit)), f"{name}.{export} is a module, shadowing a name"


def test_importing_atlas_kit_loads_the_core_only_and_installs_no_import_hook():
    import subprocess
    import sys

    probe = ("import sys; hooks = list(sys.meta_path); import atlas_kit; "
             "print(sys.meta_path == hooks); print(' '.join(sorted(m for m in sys.modules if m.startswith('atlas_kit.'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    same, loaded = done.stdout.splitlines()
    assert same == "True"
    products = ("atlas_kit.experiments", "atlas_kit.transcripts", "atlas_kit.bridges", "atlas_kit.face",
                "atlas_kit.course", "atlas_kit.cli", "atlas_kit.atlas")
    assert not [m for m in loaded.split() if m.startswith(products)], loaded
    assert "anthropic" not in done.stdout


def test_an_old_module_path_is_gone_not_aliased():
    import importlib

    for old in ("atlas_kit.errors", "atlas_kit.checks", "atlas_kit.tables"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)


def test_import_linter_contracts_hold():
    import subprocess
    import sys

    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, timeout=120, cwd=PKG.parent)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


def test_every_top_level_entry_sits_in_a_layer():
    import tomllib

    config = tomllib.loads((PKG.parent / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in config if c["type"] == "layers")["layers"]
    placed = {m.strip().removeprefix("atlas_kit.") for line in layers for m in line.split("|")}
    entries = {e.stem if e.suffix == ".py" else e.name for e in PKG.iterdir()
               if not e.name.startswith(("_", ".")) and (e.suffix == ".py" or (e / "__init__.py").exists())}
    assert entries == placed, f"place these in the layers contract of pyproject.toml: {entries ^ placed}"


def _house():  # scripts/ is not a package
    import sys

    sys.path.insert(0, str(PKG.parent / "scripts"))
    import house

    return house


def test_the_house_counter_counts_anys_long_functions_and_long_modules(tmp_path):
    house = _house()
    (tmp_path / "a.py").write_text("from typing import Any\nimport typing\n\n"
                                   "def f(x: Any, *a: 'list[Any]', **k: typing.Any) -> dict[str, Any]:\n"
                                   "    y: Any = x\n    return {}\n")
    (tmp_path / "sub").mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(40))
    (tmp_path / "sub" / "b.py").write_text(f"def long():\n{body}\n\ndef short():\n    pass\n" + "#\n" * 300)
    found = house.count(tmp_path)
    assert found.anys == {"a.py": 4}  # the variable's annotation is no signature
    assert found.long_functions == [house.LongFunction("sub/b.py", "long", 41)]
    assert found.long_modules == {"sub/b.py": 345}
    assert found.entries == ["a.py", "sub"]


def test_the_house_meets_issue_28s_targets():
    house = _house()
    found = house.count(PKG)
    print(house.report(found))
    over = {name: value for name, value in found.figures().items() if value > house.TARGETS.get(name, value)}
    assert not over, f"over issue 28's targets: {over} (python scripts/house.py lists them)"
