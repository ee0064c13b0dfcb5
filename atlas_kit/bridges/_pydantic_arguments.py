"""How the contract tool runner (tool_runner.py) tells pydantic's refusal of a call's arguments from a failure
inside the tool, and which argument pydantic refused: named, never its value. The SDK's runner says neither
(it sends `repr(exc)`); chapter 08 shows the difference.
"""
from __future__ import annotations

from types import CodeType, TracebackType
from typing import Mapping

import pydantic

from ..contract.arguments import ArgumentProblem


def ran_inside(exc: BaseException, func: object) -> bool:
    """True when `func`'s own body is in the traceback: the error came from inside the tool, not its arguments."""
    code = getattr(func, "__code__", None)
    return code is not None and any(_frames(e.__traceback__, code) for e in (exc, exc.__cause__) if e is not None)


def _frames(tb: TracebackType | None, code: CodeType) -> bool:
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
    return False


def refused_argument(err: pydantic.ValidationError, schema: Mapping[str, object]) -> ArgumentProblem:
    """For what pydantic refuses and the schema allows (a date, a custom validator): the argument, never its value."""
    declared = schema.get("properties") or {}
    props: dict[str, object] = dict(declared) if isinstance(declared, Mapping) else {}
    loc = err.errors()[0]["loc"] if err.error_count() else ()
    name = loc[0] if loc and isinstance(loc[0], str) and loc[0] in props else None
    if name is None:
        accepted = ", ".join(sorted(props)) or "none"
        return ArgumentProblem(None, f"The arguments do not match the tool's input_schema; it accepts only: {accepted}.")
    spec = props[name]
    fmt = spec.get("format") if isinstance(spec, dict) else None
    form = f"must be a valid {fmt} value" if isinstance(fmt, str) and fmt.replace("-", "").isalnum() else \
        "is not in the form the tool's description asks for"
    return ArgumentProblem(name, f"Argument {name} {form}. Change it and call the tool again.")
