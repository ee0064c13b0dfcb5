from __future__ import annotations

import ast
from pathlib import Path

import atlas_kit

PKG = Path(atlas_kit.__file__).parent

# Layers, lowest first: a module may import only from its own layer or below.
LAYERS = [
    {"trace", "errors", "arguments", "schema_subset", "vocab"},
    {"dispatch", "tool_runner"},
    {"atlas"},
    {"transport", "replay", "reading", "planner", "offline", "models", "agent", "pricing", "display", "tables"},
    {"metrics", "experiments", "results", "mcp_episode", "mcp_server", "mcp_host"},
    {"charts", "widgets", "playground", "checks", "course", "cli", "__main__", "__init__"},
]


def test_all_is_sorted_and_complete():
    assert atlas_kit.__all__ == sorted(atlas_kit.__all__)
    for name in atlas_kit.__all__:
        assert hasattr(atlas_kit, name), name
    public = {n for n in vars(atlas_kit) if not n.startswith("_") and not isinstance(getattr(atlas_kit, n), type(atlas_kit))}
    public.discard("annotations")
    assert public <= set(atlas_kit.__all__), public - set(atlas_kit.__all__)


def _layer(module: str) -> int:
    for i, layer in enumerate(LAYERS):
        if module in layer:
            return i
    raise AssertionError(f"atlas_kit/{module}: add it to a layer in tests/test_package.py")


def test_modules_import_downward_only():
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        me = rel.parts[0].removesuffix(".py")
        mine = _layer(me)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                parts = (node.module or "").split(".")
                depth_up = node.level - (len(rel.parts) - 1)
                target = parts[0] if depth_up >= 1 and parts[0] else None
                if target is None and len(rel.parts) > 1 and node.level == 1:
                    target = me  # sibling inside a sub-package
                if target:
                    assert _layer(target) <= mine, f"{rel} imports {target} from a higher layer"


def test_every_module_opens_with_a_docstring():
    for path in PKG.rglob("*.py"):
        if path.name == "__main__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 20, f"{path.relative_to(PKG)} needs a 2-4 line docstring"
