"""The grader's own code inside a learner's kernel: a network guard before their first cell, a check after.

These functions are never imported by the kernel: their source is sent as a cell after the
learner's code has run, so nothing the notebook defined or patched beforehand can stand in for them.
"""
from __future__ import annotations

import inspect
from typing import Callable


def cell(function: Callable[..., object], *args: object, answers: bool = False) -> str:
    """A cell that runs `function(*args)` (and the notebook's namespace, with `answers`) and leaves no name behind.

    The function is executed in a namespace of its own, so a learner's `list = [...]` or `def eval(...)`
    cannot change a name it uses; `import builtins` does not look names up in the notebook's namespace.
    """
    call = ", ".join([*(repr(a) for a in args), *(["_atlas_grader_builtins.globals()"] if answers else [])])
    return ("import builtins as _atlas_grader_builtins\n"
            "_atlas_grader_ns = {'__builtins__': _atlas_grader_builtins, '__name__': 'atlas_grader'}\n"
            f"_atlas_grader_builtins.exec({inspect.getsource(function)!r}, _atlas_grader_ns)\n"
            "try:\n"
            f"    _atlas_grader_ns[{function.__name__!r}]({call})\n"
            "finally:\n"
            "    del _atlas_grader_builtins, _atlas_grader_ns\n")


def guard_network(log_path: str) -> None:
    """Refuse, and log, every socket connection and name lookup that would leave the machine.

    An audit hook cannot be removed once added, so the learner's cells run under it; it does not see
    subprocesses or C code that opens its own sockets (the network namespace, where there is one, does).
    """
    import sys

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event in ("socket.connect", "socket.sendto"):
            address = args[-1]
            host, port = (address[0], address[1]) if isinstance(address, tuple) and len(address) >= 2 else (None, None)
        elif event == "socket.getaddrinfo":
            host, port = args[0], args[1]
        else:
            return
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        if host is None or str(host) in ("", "localhost", "::1") or str(host).startswith("127."):
            return
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(f"{host}:{port}\n")
        raise PermissionError(f"network access is blocked while this notebook is graded ({host}:{port})")

    sys.addaudithook(hook)


def grade_exercise(key: str, expression: str | None, result_path: str, namespace: dict[str, object]) -> None:
    """Evaluate the solution's answer expression in the notebook's `namespace`; check it with a fresh atlas_kit.checks.

    Writes JSON to `result_path`: the atlas_kit functions or classes the notebook replaced, and either
    the check's verdict or why no answer could be read.
    """
    import importlib
    import json
    import os
    import sys

    cells_folder = os.path.dirname(sys._getframe(1).f_code.co_filename)  # the calling cell's: where IPython keeps them
    # The checks' package, and its path from before the layer folders (a learner's old notebook imports that one).
    checks_packages = ("atlas_kit.course.checks", "atlas_kit.checks")

    def is_checks(name: str) -> bool:
        return any(name == p or name.startswith(p + ".") for p in checks_packages)

    def from_notebook(obj: object) -> bool:
        try:
            for candidate in (obj, getattr(obj, "__func__", None), getattr(obj, "fget", None)):
                filename = getattr(getattr(candidate, "__code__", None), "co_filename", None)
                if isinstance(filename, str) and (os.path.dirname(filename) == cells_folder
                                                  or filename.startswith("<ipython-input")):
                    return True
            return isinstance(obj, type) and obj.__module__ == "__main__"
        except Exception:  # an object whose attributes raise is not a replaced function
            return False

    def replaced_names() -> list[str]:
        """The atlas_kit functions, classes' members and names the notebook's cells replaced."""
        replaced = []
        for name, module in list(sys.modules.items()):
            if module is None or not (name == "atlas_kit" or name.startswith("atlas_kit.")) or is_checks(name):
                continue  # the checks are re-imported below
            for attr, value in list(vars(module).items()):
                if attr in ("check", "hint"):
                    continue  # the grader never calls the notebook's check or hint
                if from_notebook(value):
                    replaced.append(f"{name}.{attr}")
                elif isinstance(value, type) and str(getattr(value, "__module__", "")).startswith("atlas_kit"):
                    replaced += [f"{value.__module__}.{value.__qualname__}.{member}"
                                 for member, inner in list(vars(value).items()) if from_notebook(inner)]
        return sorted(set(replaced))

    replaced = replaced_names()
    result: dict[str, object] = {"replaced": replaced, "kind": "tampered" if replaced else "unplanned"}
    answer = None
    if not replaced and expression is not None:  # a tampered notebook is not graded at all
        try:
            answer = eval(expression, namespace)
        except NameError as exc:
            result.update(kind="undefined", detail=str(exc))
        except Exception as exc:
            result.update(kind="raised", detail=f"{type(exc).__name__}: {exc}")
        else:
            result.update(kind="answered")
    if result["kind"] == "answered":
        for name in [n for n in sys.modules if is_checks(n)]:
            del sys.modules[name]
        checks = importlib.import_module("atlas_kit.course.checks")
        feedback = checks.check(key, answer)
        blank = feedback.ok is not True and feedback.message == checks.BLANK  # the check's own "not answered yet"
        result.update(kind="checked", ok=feedback.ok is True, blank=blank, message=str(feedback.message))
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
