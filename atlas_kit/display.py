"""Rendering a Run: HTML for Jupyter, plain text for terminals.

Turns, tool calls, results (errors highlighted), the stop reason, token use and where the run came from; every
string passes the trace's redaction on the way out. `print(run)` and a notebook's run show this (agent.Run). Text and
HTML only: the face draws the charts. Used by every chapter that shows a transcript.
"""
from __future__ import annotations

import json
from html import escape

from .contract.redaction import redact
from .types.records import FailureNote, FinishedRun
from .types.walk import blocks, result_text

_CLIP = 600


def _clip(text: str) -> str:
    text = redact(text)
    return text if len(text) <= _CLIP else text[:_CLIP] + f" … [{len(text) - _CLIP} more characters]"


def _items(run: FinishedRun) -> list[tuple[str, str, bool]]:
    """(who, text, is_error) for every block of the transcript, in order."""
    out: list[tuple[str, str, bool]] = []
    for at, role, b in blocks(run.messages):
        if b["type"] == "text":
            # A message written as one string is shown under its role (the ticket); text blocks are the model's.
            out.append((role if isinstance(run.messages[at]["content"], str) else "assistant", b["text"], False))
        elif b["type"] == "tool_use":
            out.append(("tool call", f"{b['name']}({json.dumps(b['input'], ensure_ascii=False)})", False))
        else:
            text = result_text(b["content"])
            out.append(("tool error" if b.get("is_error") else "tool result", text, bool(b.get("is_error"))))
    return out


def _notes(run: FinishedRun) -> list[str]:
    return list(getattr(run, "notes", ()))  # an agent.Run's price and model notes; other runs have none


def _summary(run: FinishedRun) -> str:
    failure: FailureNote | None = getattr(run, "api_failure", None)
    why = f" ({failure.reason}: {failure.fix})" if failure is not None else ""
    return (f"stop: {run.stop_reason}{why} · steps: {run.steps} · tool calls: {run.tool_calls} · "
            f"tokens in/out: {run.input_tokens}/{run.output_tokens} · cost: ${run.cost_usd:.4f}")


def run_text(run: FinishedRun) -> str:
    """The run as plain text: who said what, the tool calls and results (errors marked !!), and the summary."""
    lines = [f"[{redact(run.source or run.model)}]"]
    for who, text, is_error in _items(run):
        mark = "!!" if is_error else "  "
        lines.append(f"{mark} {who:>11}: {_clip(text)}")
    lines.append(_summary(run))
    lines.extend(f"note: {redact(n)}" for n in _notes(run))
    return "\n".join(lines)


_COLOURS = {"user": "#eef3fb", "assistant": "#f4f4f4", "tool call": "#fdf6e3", "tool result": "#eef8ee", "tool error": "#fde8e8"}


def run_html(run: FinishedRun) -> str:
    """The run as an HTML table for a notebook: the same turns as run_text, errors in red."""
    rows = []
    for who, text, is_error in _items(run):
        style = f"background:{_COLOURS[who]};" + ("border-left:4px solid #c62828;" if is_error else "")
        rows.append(
            f'<tr style="{style}"><td style="padding:4px 8px;white-space:nowrap;vertical-align:top">'
            f"<b>{escape(who)}</b></td><td style=\"padding:4px 8px;font-family:monospace;white-space:pre-wrap\">"
            f"{escape(_clip(text))}</td></tr>"
        )
    notes = "".join(f"<div><i>note: {escape(redact(n))}</i></div>" for n in _notes(run))
    return (
        f'<div class="atlas-run"><div><b>{escape(redact(str(run.source or run.model)))}</b></div>'
        f'<table style="border-collapse:collapse;width:100%">{"".join(rows)}</table>'
        f"<div>{escape(_summary(run))}</div>{notes}</div>"
    )

