"""What a grader's kernel imports: the SDK (about 1.4 s) and the kernel manager only where they are used.

Each runs in a fresh interpreter, since this process has imported everything already.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("anthropic", "nbformat", "jupyter_client", "jsonschema")


def _loaded(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return set(done.stdout.split())


def test_the_checking_kernel_loads_the_judge_and_one_chapters_checks_without_the_sdk_or_the_kernel_manager():
    assert _loaded("from atlas_kit.course.grading.judge import prepare\nprepare(watch=False, chapters=['02'])\n"
                   "from atlas_kit.course.checks import EXERCISES\nassert '02.1' in EXERCISES and '01.1' not in EXERCISES"
                   ) == set()


def test_the_checking_kernel_watching_a_function_answer_loads_only_what_its_checks_use():
    # chapter 09's checks call the dispatcher, never the SDK; modules a check imports later are recorded as they load
    assert _loaded("from atlas_kit.course.grading.judge import prepare, changed\n"
                   "baseline = prepare(watch=True, chapters=['09'])\n"
                   "from atlas_kit.course.checks import check\nimport atlas_kit.course.checks.ch09 as c\n"
                   "check('09.2', ...)\nassert changed(baseline) == [], changed(baseline)") == set()


@pytest.mark.parametrize("key", ["02.1", "03.1", "05.1"])
def test_a_learners_check_loads_only_its_chapter_and_no_sdk_where_the_chapter_needs_none(key):
    assert _loaded(f"from atlas_kit.course.checks import check, EXERCISES\ncheck({key!r}, ...)\n"
                   f"assert {{k[:2] for k in EXERCISES}} == {{{key[:2]!r}}}, sorted(EXERCISES)") == set()


def test_an_unknown_key_loads_every_chapter_so_the_message_can_list_them():
    assert "anthropic" in _loaded("from atlas_kit.course.checks import check\n"
                                  "assert '16.' in check('99.1', 1).message")
    assert _loaded("from atlas_kit.course.grading.judge import prepare\nprepare(watch=False)\n"
                   "from atlas_kit.course.checks import EXERCISES\nassert '16.1' in EXERCISES") == {"anthropic"}


def test_inspect_loading_this_package_s_entry_point_does_not_load_the_sdk():
    # every `inspect` command loads the entry points of the packages installed; the stand-in needs no SDK
    pytest.importorskip("inspect_ai")
    assert "anthropic" not in _loaded("import atlas_kit.bridges.inspect.registry")


def test_the_grader_s_command_loads_no_sdk():
    # atlas-kit grade starts kernels and reads files; the names of the model's variables come without the SDK
    assert "anthropic" not in _loaded("import atlas_kit.course.grading.classroom")
