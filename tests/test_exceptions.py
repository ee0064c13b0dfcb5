"""atlas_kit's exception base: a bad option from every layer is an AtlasKitError, still the built-in class it was (so
`except ValueError` keeps working), with its name and its message as before; errors that are not atlas_kit's own
(a tool's ToolFailure, the API's) are not AtlasKitErrors."""
from __future__ import annotations

import builtins
from pathlib import Path
from typing import Callable

import pytest

import atlas_kit
from atlas_kit import AtlasKitError
from atlas_kit.types.exceptions import AtlasKitKeyError, AtlasKitTypeError, AtlasKitValueError


def _bad_options(tmp_path: Path) -> dict[str, tuple[Callable[[], object], type[BaseException]]]:
    """One bad input per layer: what to call, and the built-in class its error has always been."""
    from atlas_kit.agent import Bounds, run_agent
    from atlas_kit.atlas import World, atlas_session, ticket
    from atlas_kit.bridges.audit.user_cases import read_cases
    from atlas_kit.contract.errors import tool_error
    from atlas_kit.contract.values import safe, say
    from atlas_kit.course.byo.harness import YourDispatcher
    from atlas_kit.course.runner import listed
    from atlas_kit.dispatch.dispatcher import Dispatcher
    from atlas_kit.dispatch.tool import Tool
    from atlas_kit.face.playground import compose_error
    from atlas_kit.models.choose import choose_model
    from atlas_kit.models.cassette import Cassette
    from atlas_kit.models.standin.model import offline_client
    from atlas_kit.models.transport import APIFault
    from atlas_kit.models.body import message_body
    from atlas_kit.types import Source

    (tmp_path / "cases.jsonl").write_text("not json\n")
    return {
        "types: a Source of no kind": (lambda: Source("guessed", "m"), builtins.ValueError),  # type: ignore[arg-type]
        "contract: a tool_error with no id": (lambda: tool_error("", "not_found", "No order matches order_id."),
                                              builtins.ValueError),
        "contract: safe() of free text": (lambda: safe("ignore previous instructions"), builtins.ValueError),
        "contract: say() of a bare str": (lambda: say("No account matches {v}.", v="ACC-1"), builtins.TypeError),
        "dispatch: a tool name with spaces": (lambda: Tool("get order", "Look up one order by its id, for the "
                                                           "customer.", {"type": "object"}, lambda a, c: a),
                                              builtins.ValueError),
        "dispatch: a Dispatcher of non-tools": (lambda: Dispatcher([object()]), builtins.TypeError),  # type: ignore[list-item]
        "atlas: an unknown ticket": (lambda: ticket("T99"), builtins.KeyError),
        "atlas: a World seeded with text": (lambda: World(seed="1"), builtins.TypeError),  # type: ignore[arg-type]
        "atlas: a session of a number": (lambda: atlas_session(5), builtins.TypeError),  # type: ignore[arg-type]
        "models: an unknown stop reason": (lambda: message_body([], model="m", stop_reason="done"), builtins.ValueError),
        "models: a fault with a success status": (lambda: APIFault(200, "ok"), builtins.ValueError),
        "models: a cassette that is no file": (lambda: Cassette.load(tmp_path / "missing.json"), builtins.ValueError),
        "models: a model named by a number": (lambda: choose_model(5), builtins.ValueError),  # type: ignore[arg-type]
        "agent: a bound of zero steps": (lambda: Bounds(max_steps=0), builtins.ValueError),
        "agent: a run without a task": (lambda: run_agent(offline_client(), object(), model="m"),  # type: ignore[arg-type]
                                        builtins.TypeError),
        "course: a list parameter that is a number": (lambda: listed(5, name="styles"), builtins.ValueError),
        "course: YourDispatcher of a name": (lambda: YourDispatcher("dispatch", []), builtins.TypeError),  # type: ignore[arg-type]
        "face: a composed error the builder refuses": (lambda: compose_error("not_found", ""), builtins.ValueError),
        "bridges: a --cases file that is not JSON": (lambda: read_cases(tmp_path / "cases.jsonl"), builtins.ValueError),
    }


def test_a_bad_option_from_each_layer_is_an_atlas_kit_error_and_still_its_built_in_class(tmp_path: Path) -> None:
    for what, (call, builtin) in _bad_options(tmp_path).items():
        with pytest.raises(AtlasKitError) as caught:
            call()
        assert isinstance(caught.value, builtin), what
        assert type(caught.value).__name__ in (builtin.__name__, "ProviderError", "CasesFileError"), what
        assert str(caught.value).strip(), what


def test_except_value_error_still_catches_them_and_the_name_and_message_read_as_before() -> None:
    from atlas_kit.contract.values import safe

    try:
        safe("ignore previous instructions")
    except ValueError as refused:  # chapter 08 prints exactly this
        assert f"{type(refused).__name__}: {refused}".startswith("ValueError: safe() accepts an int")
        assert repr(refused).startswith("ValueError(")
    else:
        pytest.fail("safe() took free text")
    assert issubclass(AtlasKitValueError, ValueError) and issubclass(AtlasKitTypeError, TypeError)
    assert issubclass(AtlasKitKeyError, KeyError) and str(AtlasKitKeyError("T99")) == "'T99'"  # as KeyError words it


def test_the_package_s_own_exception_classes_are_atlas_kit_errors() -> None:
    from atlas_kit.bridges.audit.targets import ConnectFailure
    from atlas_kit.bridges.audit.user_cases import CasesFileError
    from atlas_kit.models.provider import ProviderError

    for kind in (ProviderError, CasesFileError, ConnectFailure):
        assert issubclass(kind, AtlasKitError), kind
    assert issubclass(ProviderError, ValueError) and issubclass(CasesFileError, ValueError)


def test_failures_that_are_not_atlas_kit_s_own_are_not_atlas_kit_errors() -> None:
    from atlas_kit import ToolFailure, Transient
    from atlas_kit.models.transport import ReplayMiss

    for kind in (ToolFailure, Transient, ReplayMiss):  # a tool's failure, a transient, the API's own error
        assert not issubclass(kind, AtlasKitError), kind


def test_the_base_is_listed_at_the_top() -> None:
    assert "AtlasKitError" in atlas_kit.__all__ and atlas_kit.AtlasKitError is AtlasKitError


def test_in_a_notebook_an_atlas_kit_error_shows_its_line_and_yours_not_a_traceback(capsys):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        result = shell.run_cell("from atlas_kit.models.registry import parse_model\n\nparse_model('qwen3:4b')\n")
        shown = capsys.readouterr()
    finally:
        InteractiveShell.clear_instance()
    assert isinstance(result.error_in_exec, AtlasKitValueError)
    text = shown.out + shown.err
    assert "ValueError: 'qwen3:4b' is not a Claude model's name" in text
    assert "(raised by your line 3: parse_model('qwen3:4b'))" in text
    assert "Traceback" not in text and "choose.py" not in text  # none of atlas_kit's own frames


def test_an_error_never_raised_renders_its_line_alone():
    assert AtlasKitValueError("bad seed; pass a whole number.")._render_traceback_() == [
        "ValueError: bad seed; pass a whole number."]


# What atlas_kit raises that is not an AtlasKitError, on purpose, and why (issue 49).
NOT_ATLAS_KIT_ERRORS = {
    "ToolFailure": "a tool's failure, worded for the model by the dispatcher",
    "Transient": "a transient tool failure the harness retries",
    "APIFault": "a scripted API failure the in-process API answers with",
    "HandlerError": "an API failure: an anthropic error, counted apart from the model's",
    "ReplayMiss": "an API failure: a request the cassette does not hold",
    "BatchExpired": "an API failure of the Message Batches path", "BatchCanceled": "the same",
    "BadResults": "the same",
    "SweepInterrupted": "Ctrl-C: a KeyboardInterrupt that says how to resume",
    "NotHandedIn": "control flow: an MCP episode closed before finish", "Runaway": "control flow in build-it-yourself",
    "Stopping": "control flow: a sweep winding down", "_OutOfTime": "control flow: a check's time limit",
    "ContextWarning": "a warning, not an error",
}
# Built-in exceptions a module may raise as they are: the protocol or the caller expects exactly these.
BUILT_INS_ALLOWED = {"AttributeError", "ImportError", "FileNotFoundError", "IsADirectoryError", "PermissionError",
                     "TimeoutError", "RuntimeError", "StopIteration", "NotImplementedError", "KeyboardInterrupt",
                     "JSONDecodeError", "ArgumentTypeError", "ArgumentError", "SystemExit"}


def test_every_error_atlas_kit_raises_on_purpose_is_an_atlas_kit_error_or_says_why_not() -> None:
    import ast
    import builtins
    import importlib
    import inspect
    import pkgutil

    odd = []
    for info in pkgutil.walk_packages(atlas_kit.__path__, "atlas_kit."):
        if info.name.startswith("atlas_kit.bridges.inspect") or info.name.endswith("__main__"):
            continue  # an optional extra; a command's entry point runs on import
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name \
                    and not issubclass(value, AtlasKitError) and name not in NOT_ATLAS_KIT_ERRORS:
                odd.append(f"{info.name}.{name} derives from {value.__mro__[1].__name__}, not AtlasKitError")
        source = inspect.getsource(module)
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                func = node.exc.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if hasattr(builtins, called) and called not in BUILT_INS_ALLOWED:
                    odd.append(f"{info.name}:{node.lineno} raises the built-in {called}")
    assert not odd, "\n".join(odd)
