"""Answers leave the learner's kernel as JSON (take.py) and are rebuilt in a clean one (judge.py): in process here.

take_answer sees the notebook's cells as code compiled in the calling cell's folder, so each test compiles its
"cells" under a file name in tmp_path, as IPython keeps them.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from atlas_kit.contract.errors import Branch, retry_changed, tool_error
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check
from atlas_kit.course.grading.payloads import read_payload
from atlas_kit.course.grading.judge import prepare, changed, rebuild
from atlas_kit.course.grading.recorder import ImportRecorder
from answer_taking import run_cells, take


@pytest.fixture(autouse=True)
def _no_recorder_left():
    """prepare() puts an import recorder first in sys.meta_path, as a checking kernel needs; not in this process."""
    yield
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, ImportRecorder)]


def _take(tmp: Path, cells: list[str], expression: str) -> dict[str, object]:
    """Run `cells` as a notebook would, then take `expression` out as the grader's cell does."""
    out = tmp / "answer.json"
    take(tmp, cells, run_cells(tmp, cells), expression, out)
    payload = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(payload, dict)
    return payload


def _round_trip(tmp: Path, cells: list[str], expression: str) -> object:
    payload = _take(tmp, cells, expression)
    assert payload["kind"] == "taken", payload
    return rebuild(payload, "00.0")


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | st.just(...),
    lambda inner: (st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.frozensets(st.integers(), max_size=3)
                   | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)),
    max_leaves=20)


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=60, deadline=None)
@given(value=values)
def test_plain_values_come_back_as_they_were_with_their_types(tmp_path_factory, value):
    tmp = tmp_path_factory.mktemp("plain")
    got = _round_trip(tmp, [f"answer = {value!r}" if "nan" not in repr(value) and "inf" not in repr(value)
                            else "answer = None"], "answer")
    expected = value if "nan" not in repr(value) and "inf" not in repr(value) else None
    assert _same(expected, got), (expected, got)


def test_non_finite_floats_and_atlas_values_come_back(tmp_path):
    cells = ["from atlas_kit.contract.errors import Branch, retry_changed, tool_error\n"
             "answer = (float('nan'), float('-inf'), Branch.STOP, tool_error('toolu_1', 'invalid_argument', "
             "'Argument region is missing; add it.', next=retry_changed('region', 'Call again with a region.')))"]
    nan, inf, branch, error = _round_trip(tmp_path, cells, "answer")  # type: ignore[misc]
    assert math.isnan(nan) and inf == -math.inf and branch is Branch.STOP
    assert error == tool_error("toolu_1", "invalid_argument", "Argument region is missing; add it.",
                               next=retry_changed("region", "Call again with a region."))


def test_a_function_comes_back_with_what_it_uses_closures_lambdas_recursion_and_statements(tmp_path):
    cells = ["import json\nimport jsonschema\nfrom atlas_kit.contract.errors import stop\nLIMIT = 3",
             "VALIDATOR = jsonschema.Draft202012Validator({'type': 'object'})",
             "def helper(n):\n    return n if n < 2 else helper(n - 1) + helper(n - 2)",
             "def make(k):\n    scale = lambda x: x * k\n    def inner(x, y=LIMIT):\n"
             "        return json.dumps([helper(x), scale(y), VALIDATOR.is_valid({}), stop('Tell them.').branch.value])\n"
             "    return inner",
             "answer = make(10)"]
    answer = _round_trip(tmp_path, cells, "answer")
    assert callable(answer) and answer(6) == json.dumps([8, 30, True, "stop"])


def test_a_blank_function_is_still_blank_when_rebuilt(tmp_path):
    cells = ['def recovery_counts(records):\n    """{style: (recovered, hit)}."""\n    ...']
    assert check("01.2", _round_trip(tmp_path, cells, "recovery_counts")).message == BLANK


def test_what_cannot_be_taken_out_says_why(tmp_path):
    cells = ["class Mine:\n    pass", "answer = [1, Mine()]"]
    payload = _take(tmp_path, cells, "answer")
    assert payload["kind"] == "unsupported" and "Mine" in str(payload["detail"])
    payload = _take(tmp_path, ["answer = (x for x in [1])"], "answer")
    assert payload["kind"] == "unsupported" and "generator" in str(payload["detail"])
    assert _take(tmp_path, ["x = 1"], "answer")["kind"] == "undefined"
    assert _take(tmp_path, ["answer = {}"], "answer['missing']")["kind"] == "raised"


def test_rebuild_refuses_a_payload_it_did_not_write():
    for value in ({"$dataclass": "os:system", "fields": {}}, {"$enum": "json:dumps", "value": 1},
                  {"$what": 1}, {"$float": "1e999"}, {"a": 1, "b": 2, "c": 3}):
        with pytest.raises(ValueError):
            rebuild({"kind": "taken", "value": value, "env": {}, "statements": []}, "00.0")


def test_the_baseline_sees_a_patch_to_the_checks_even_when_the_original_is_freed():
    baseline = prepare()
    import atlas_kit.course.checks.ch04 as ch04

    ids = {e[2] for e in baseline.entries if e[:2] == ("atlas_kit.course.checks.ch04", "_refuses_unknown")}
    ch04._refuses_unknown = lambda handler: None  # nothing here holds the original: only the baseline keeps it alive
    try:
        assert changed(baseline) == ["atlas_kit.course.checks.ch04._refuses_unknown"]
    finally:
        ch04._refuses_unknown = next(obj for obj in baseline.kept if id(obj) in ids)
    assert changed(baseline) == []


def test_a_module_imported_later_is_no_change_unless_it_is_made_up():
    import sys
    import types

    import importlib

    import atlas_kit.bridges.audit as package

    name = "atlas_kit.bridges.audit.report"  # not preloaded (no check uses it): loaded afresh from atlas_kit's files
    earlier = sys.modules.pop(name, None)  # as if never imported: the package holds no attribute for it either
    held = package.__dict__.pop("report", None)
    baseline = prepare()
    try:
        importlib.import_module(name)
        assert changed(baseline) == []
        sys.modules["atlas_kit.course.checks.made_up"] = types.ModuleType("atlas_kit.course.checks.made_up")
        try:
            assert changed(baseline) == ["sys.modules.atlas_kit.course.checks.made_up"]
        finally:
            del sys.modules["atlas_kit.course.checks.made_up"]
    finally:
        if earlier is not None:
            sys.modules[name] = earlier
        if held is not None:
            package.report = held  # type: ignore[attr-defined]


_LATE = "atlas_kit.bridges.audit.report"  # not loaded by any check: imported afresh after the baseline


def _forgotten(name: str) -> tuple[object, object]:
    """Take `name` out of sys.modules and its package, as if never imported; returns what to put back."""
    import importlib

    importlib.import_module(name)  # so there is a module to put back, whatever ran before
    package = sys.modules[name.rpartition(".")[0]]
    return sys.modules.pop(name, None), package.__dict__.pop(name.rpartition(".")[2], None)


def _restore(name: str, held: tuple[object, object]) -> None:
    module, attribute = held
    if module is not None:
        sys.modules[name] = module
    if attribute is not None:
        setattr(sys.modules[name.rpartition(".")[0]], name.rpartition(".")[2], attribute)


def test_a_module_imported_after_the_baseline_is_recorded_as_it_loads_so_a_later_patch_is_a_change():
    import importlib

    held = _forgotten(_LATE)
    baseline = prepare(chapters=["09"])
    try:
        late = importlib.import_module(_LATE)
        assert late is not held[0] and changed(baseline) == []
        late.clip = lambda text, width: ""  # type: ignore[attr-defined]
        assert changed(baseline) == [f"{_LATE}.clip"]
    finally:
        sys.modules.pop(_LATE, None)
        _restore(_LATE, held)


def test_a_module_built_by_hand_from_atlas_kit_s_own_file_is_a_change():
    import importlib.util

    held = _forgotten(_LATE)
    baseline = prepare(chapters=["09"])
    try:
        origin = getattr(held[0], "__file__", None)
        assert isinstance(origin, str)
        spec = importlib.util.spec_from_file_location(_LATE, origin)  # the genuine file, past the import system
        assert spec is not None and spec.loader is not None
        made = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(made)
        sys.modules[_LATE] = made
        assert changed(baseline) == [f"sys.modules.{_LATE}"]
    finally:
        sys.modules.pop(_LATE, None)
        _restore(_LATE, held)


def test_taking_the_recorder_out_of_the_import_system_is_a_change():
    baseline = prepare(chapters=["09"])
    recorder = next(finder for finder in sys.meta_path if isinstance(finder, ImportRecorder))
    sys.meta_path.remove(recorder)
    try:
        assert "sys.meta_path.0" in changed(baseline)
    finally:
        sys.meta_path.insert(0, recorder)
    assert changed(baseline) == []


def test_a_payload_is_read_only_from_a_regular_file_of_bounded_size(tmp_path):
    good = tmp_path / "good.json"
    good.write_text('{"kind": "taken"}', encoding="utf-8")
    assert read_payload(good) == {"kind": "taken"}
    link = tmp_path / "link.json"
    os.symlink(good, link)
    assert read_payload(link) is None  # a link could point at the teacher's files
    assert read_payload(good, limit=4) is None
    os.mkfifo(tmp_path / "fifo")
    assert read_payload(tmp_path / "fifo") is None
    (tmp_path / "list.json").write_text("[1]", encoding="utf-8")
    assert read_payload(tmp_path / "list.json") is None
