"""tests/bytecode_warmup.py: a fresh tree's package compiled and its test modules rewritten once, then left alone."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from _pytest.assertion import rewrite

from bytecode_warmup import warm


def _tree(root):
    (root / "atlas_kit").mkdir()
    (root / "atlas_kit" / "thing.py").write_text("VALUE = 1\n")
    (root / "tests" / "deep").mkdir(parents=True)
    (root / "tests" / "helper.py").write_text("HELP = 2\n")
    (root / "tests" / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    (root / "tests" / "deep" / "test_two.py").write_text("def test_two():\n    assert [1] == [1]\n")
    (root / "tests" / "broken_test_syntax.py").write_text("def (:\n")
    (root / "tests" / "test_broken.py").write_text("def (:\n")


def test_a_fresh_tree_is_compiled_and_rewritten_once(tmp_path, pytestconfig):
    _tree(tmp_path)
    assert warm(pytestconfig, tmp_path) == 2  # the two test modules; the broken one is left to its worker
    for plain in (tmp_path / "atlas_kit" / "thing.py", tmp_path / "tests" / "helper.py"):
        assert Path(importlib.util.cache_from_source(str(plain))).is_file(), plain
    for test in (tmp_path / "tests" / "test_one.py", tmp_path / "tests" / "deep" / "test_two.py"):
        pyc = rewrite.get_cache_dir(test) / (test.name[:-3] + rewrite.PYC_TAIL)
        assert rewrite._read_pyc(test, pyc) is not None, "a worker would not find the rewritten module"
    assert warm(pytestconfig, tmp_path) == 0  # fresh already: nothing is done again


def test_a_changed_test_module_is_rewritten_again(tmp_path, pytestconfig):
    _tree(tmp_path)
    warm(pytestconfig, tmp_path)
    (tmp_path / "tests" / "test_one.py").write_text("def test_one():\n    assert 2 + 2 == 4  # changed\n")
    assert warm(pytestconfig, tmp_path) == 1
