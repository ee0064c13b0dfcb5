"""The audit as one HTML page (`--html FILE`): scores, the rule × tool table, the worst answers, then every case.

Built from report.to_json, so the page and the JSON never disagree; every string is escaped, a server's text
above all (it is untrusted). No scripts, no external assets. Chapter 10.
"""
from __future__ import annotations

from html import escape

from ...contract.rubric import RULES
from .report import AuditJSON, Counts, ToolJSON, clip

__all__ = ["render_html"]

_CSS = ("body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
        ".pass{color:#16632f}.fail{color:#a11}.na{color:#888}pre{white-space:pre-wrap;margin:0;max-width:60em}"
        "details{margin:.4em 0}")
_MAX_TEXT = 2_000  # characters of one reply shown on the page; the JSON keeps them all
_ORIGIN = {"server": "server", "sdk": "MCP SDK", "library": "validation library"}


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _score(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def _cell(c: Counts) -> str:
    judged = c["pass"] + c["fail"]
    if not judged:
        return '<td class="na">·</td>'
    if not c["fail"]:
        return f'<td class="pass">✓ {judged}</td>'
    return f'<td class="fail">✗ {c["fail"]}/{judged}</td>'


def _table(doc: AuditJSON) -> str:
    head = "".join(f"<th>{_e(r)}</th>" for r in RULES)
    rows = "".join(f"<tr><td>{_e(t['name'])}</td><td>{_score(t['score'])}</td><td>{_score(t['author_score'])}</td>"
                   + "".join(_cell(t["rules"][r]) for r in RULES) + "</tr>" for t in doc["tools"])
    return f"<table><tr><th>tool</th><th>score</th><th>author's part</th>{head}</tr>{rows}</table>"


def _worst(doc: AuditJSON) -> str:
    """Each worst reply once, with every rule it is the worst for and why it fails that rule."""
    if not doc["worst"]:
        return "<p>No answer failed any rule.</p>"
    grouped: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for rule, w in doc["worst"].items():
        grouped.setdefault((w["tool"], w["case"], w["text"]), []).append((rule, w["reason"]))
    items = "".join(f"<li>{_e(tool)} ({_e(case)})<pre>{_e(clip(text, 400))}</pre><ul>"
                    + "".join(f"<li><b>{_e(rule)}</b>: {_e(reason)}</li>" for rule, reason in rules) + "</ul></li>"
                    for (tool, case, text), rules in grouped.items())
    return f"<ul>{items}</ul>"


def _cases(tool: ToolJSON) -> str:
    out = []
    for case in tool["cases"]:
        reply = case.get("reply")
        text = str(reply.get("text", "")) if isinstance(reply, dict) else ""
        cut = max(text.rfind(" ", 0, _MAX_TEXT), _MAX_TEXT // 2)  # between words where there are any
        shown = text if len(text) <= _MAX_TEXT else text[:cut] + f" … ({len(text):,} characters in all)"
        verdicts = case.get("verdicts")
        rows = "".join(f'<li class="{"na" if v["status"] == "n/a" else v["status"]}">{_e(v["rule"])}: '
                       f'{_e(v["status"])}, {_e(v["reason"])}</li>'
                       for v in (verdicts if isinstance(verdicts, list) else []))
        label = f"{case['kind']}: {case['why']} — {case['outcome']}" + \
            (f", score {case['score']}" if case.get("score") is not None else "") + \
            (f"; the {_ORIGIN[str(case['origin'])]}'s words" if case.get("origin") in _ORIGIN else "")
        body = f"<pre>{_e(shown)}</pre><ul>{rows}</ul>" if case["outcome"] == "judged" else f"<p>{_e(case['reason'])}</p>"
        out.append(f"<details><summary>{_e(label)}</summary>{body}</details>")
    return "".join(out)


def render_html(doc: AuditJSON) -> str:
    """The whole page for an audit's JSON document (report.to_json)."""
    lim = doc["limits"]
    tools = "".join(f"<h3>{_e(t['name'])} — score {_score(t['score'])}"
                    f"{' (read-only, as the server says)' if t['read_only'] else ''}</h3>{_cases(t)}"
                    for t in doc["tools"])
    stopped = f"<p class=\"fail\">The audit stopped early: {_e(doc['stopped'])}.</p>" if doc["stopped"] else ""
    stopped += f"<p class=\"fail\">The server failed the audit: {_e(doc['failure'])}.</p>" if doc["failure"] else ""
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>atlas-kit audit</title>"
            f"<style>{_CSS}</style></head><body><h1>atlas-kit audit</h1><p><code>{_e(doc['target'])}</code></p>"
            f"<p><b>Server score: {_score(doc['score'])} / 100.</b> {_e(doc['formula'])}.</p>"
            f"<p><b>The author's part: {_score(doc['author_score'])} / 100.</b> {_e(doc['author_formula'])}.</p>"
            f"<p>Limits: {_e(lim['call_timeout'])} s a call, {_e(lim['total_seconds'])} s in all, at most "
            f"{_e(lim['calls_per_tool'])} calls a tool; side effects {'allowed' if lim['allow_side_effects'] else 'not allowed'}; "
            f"network {_e(doc['network'])}. "
            f"Lengths are {_e(doc['tokens'])}.</p>{stopped}<h2>Rules by tool</h2>{_table(doc)}"
            f"<h2>The worst answer for each rule</h2>{_worst(doc)}<h2>Every case</h2>{tools}</body></html>")
