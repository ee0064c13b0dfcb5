"""Build it yourself: check a dispatcher you wrote against the contract, and run it beside the library's.

probe (the tools and cases a dispatcher is checked with), properties (the seven rules), audit (running
them, with the smallest failing input), harness (your dispatcher in the agent loop). Chapter 13.
"""
from __future__ import annotations

from .audit import Verdict, audit, first_violation, render
from .harness import DispatchFunction, ToolFunction, YourDispatcher, compare, tool_functions, your_session
from .properties import PROPERTIES

__all__ = ["DispatchFunction", "PROPERTIES", "ToolFunction", "Verdict", "YourDispatcher", "audit", "compare",
           "first_violation", "render", "tool_functions", "your_session"]
