"""The error playground: pick a ticket and a failure, word the error, run a model, see what it did next.

An ipywidgets panel over atlas_session, run_agent and grade; composed errors go through the
builder, so its rules apply here too. It holds no model logic and no new grading. Chapters 02
(the same failure in three styles) and 03 (write the error yourself, as an instruction).
"""
from __future__ import annotations

import json
from html import escape
from typing import TypedDict, Union

import ipywidgets as w

from ..agent import Run, run_agent
from ..atlas.faults import KINDS, Fault, always, fail_first_call
from ..atlas.tickets import TICKETS
from ..atlas.tools import TOOL_NAMES
from ..atlas.session import Session, atlas_session
from ..atlas.grade import grade
from ..dispatch.styles import STYLES
from ..display import run_html
from ..contract.errors import ALLOWED_BRANCHES, RETRYABLE, Branch, ErrorCode, Next, ToolFailure, tool_error
from ..experiments.episodes import profile_named
from ..models.choose import choose_model
from ..models.standin.model import Profile
from ..models.standin.reading import read_error
from .tables import Table, keep_dollars
from ..types.sets import FaultKind
from ..types.records import RunLike
from ..types.walk import blocks, result_text

OWN, NONE, COMPOSE = "own", "none", "compose"
_ABOUT = {"raw": "what the library said", "generic": "the usual wrapper", "plain": "a diagnosis, no next step",
          "contract": "the builder's block"}  # a style missing here is offered under its name alone
_STYLES = (*((f"{name}: {_ABOUT[name]}" if name in _ABOUT else name, name) for name in STYLES),
           ("compose my own (contract)", COMPOSE))
_WIDE = w.Layout(width="48em")
MimeBundle = Union[dict[str, object], tuple[dict[str, object], dict[str, object]]]  # IPython's: data (, metadata)


def compose_error(code: str, message: str, *, branch: str = "", tool: str = "", argument: str = "",
                  say: str = "") -> ToolFailure:
    """A ToolFailure from the composer's fields; the builder's ValueError passes through unchanged.

    branch "" means no `next`; tool and argument "" mean unset.
    """
    nxt = None
    if branch:
        nxt = Next(Branch(branch), say, tool=tool.strip() or None, argument=argument.strip() or None)
    tool_error("toolu_playground", code, message, next=nxt)  # the builder's checks, exactly as a tool meets them
    return ToolFailure(code, message, next=nxt)


class NextMove(TypedDict):
    """The first error the model read (`tool`, `error`: its text) and what it did next (`move`)."""

    tool: str
    error: str
    move: str


def next_move(run: RunLike) -> NextMove | None:
    """The first error the model read and what it did next: tool, error text, and its move.

    None when no error reached the model (none happened, or the harness retried it away).
    """
    placed = list(blocks(run.messages))
    names = {b["id"]: b["name"] for _, _, b in placed if b["type"] == "tool_use"}
    for at, _, error in placed:
        if error["type"] != "tool_result" or not error.get("is_error"):
            continue
        after = [b for i, _, b in placed if i == at + 1]
        uses = [b for b in after if b["type"] == "tool_use"]
        if at + 1 >= len(run.messages):
            move = f"none: the run stopped here ({run.stop_reason})"
        elif uses:
            move = "called " + "; ".join(f"{b['name']}({json.dumps(b['input'], ensure_ascii=False)})" for b in uses)
        else:
            move = "replied: " + " ".join(b["text"] for b in after if b["type"] == "text")
        return {"tool": names.get(error["tool_use_id"], "?"), "error": result_text(error["content"]), "move": move}
    return None


class Playground:
    """The panel. Set the widgets (or click them), then `run()`; display the object to see it.

    model: None for $ATLAS_MODEL or the offline stand-in; seed and profile drive the stand-in.
    """

    def __init__(self, *, model: str | None = None, seed: int = 0, profile: Profile | str | None = None) -> None:
        self.model, self.profile = model, profile_named(profile)
        self.choice = choose_model(model, seed=seed, profile=self.profile)
        self.last_run: Run | None = None
        described = "<br>".join(escape(line) for line in self.choice.describe().splitlines())
        self.label = w.HTML(f"<b>Error playground</b> · {described}")
        self._choosers(seed)
        self._composer()
        mode = "simulated" if self.choice.mode == "offline" else self.choice.mode
        self.run_button = w.Button(description=f"Run ({mode})", button_style="primary", tooltip=self.choice.source.label,
                                   layout=w.Layout(width="auto"))
        self.status = w.HTML()
        self.result = w.HTML()
        self.panel = w.VBox([self.label, w.HBox([self.ticket, self.seed]), w.HBox([self.target, self.fault]),
                             self.style, self.composer, w.HBox([self.run_button, self.status]), self.result])
        self._observe()
        self._ticket_changed()
        self._style_changed()
        self._refresh_preview()

    def _choosers(self, seed: int) -> None:
        """The widgets that choose the run: ticket, seed, the tool to fail, the failure and the wording."""
        self.ticket = w.Dropdown(description="ticket", layout=_WIDE,
                                 options=[(f"{t.id} · {t.title}", t.id) for t in TICKETS.values()])
        self.seed = w.BoundedIntText(value=seed, min=0, max=10**6, description="seed")
        self.target = w.Dropdown(description="tool to fail", options=TOOL_NAMES)
        self.fault = w.Dropdown(description="failure", layout=_WIDE)
        self.style = w.Dropdown(description="wording", options=_STYLES, value="contract", layout=_WIDE)

    def _composer(self) -> None:
        """The widgets that compose an error of your own: code, message, next and its fields, and a preview."""
        self.code = w.Dropdown(description="code", options=[c.value for c in ErrorCode], value="not_permitted")
        self.retryable = w.Checkbox(description="retryable (follows from the code)", disabled=True)
        self.message = w.Textarea(description="message", layout=w.Layout(width="48em", height="4em"), value=(
            "This session may not use that record. Do not try other ids; tell the customer it cannot be done here."))
        self.branch = w.Dropdown(description="next", options=[("(no next)", "")] + [(b.value, b.value) for b in Branch],
                                 value="stop")
        self.tool = w.Combobox(description="next tool", options=TOOL_NAMES, ensure_option=False)
        self.argument = w.Text(description="argument")
        self.say = w.Text(description="say", layout=_WIDE, value="Tell the customer you cannot do this for them here.")
        self.allowed = w.HTML()
        self.preview = w.HTML()
        self.composer = w.VBox([w.HBox([self.code, self.retryable]), self.allowed, self.message, self.branch,
                                w.HBox([self.tool, self.argument]), self.say, self.preview])

    def _observe(self) -> None:
        """Each widget's change updates what depends on it; any change marks the last result stale."""
        self.ticket.observe(self._ticket_changed, names="value")
        self.target.observe(self._target_changed, names="value")
        self.style.observe(self._style_changed, names="value")
        for field in (self.code, self.message, self.branch, self.tool, self.argument, self.say):
            field.observe(self._refresh_preview, names="value")
        for field in (self.ticket, self.seed, self.target, self.fault, self.style, self.code, self.message,
                      self.branch, self.tool, self.argument, self.say):
            field.observe(self._mark_stale, names="value")
        self.run_button.on_click(self._clicked)

    # --- reacting to the widgets ---------------------------------------------------------

    def _mark_stale(self, _: object = None) -> None:
        if self.last_run is not None:  # the result below no longer matches the settings above
            self.status.value = "<b>Settings changed:</b> click Run; the result below is from the previous settings."

    def _ticket_changed(self, _: object = None) -> None:
        t = TICKETS[self.ticket.value]
        # The harness (not the model) reads the script to pick a sensible default tool to fail.
        self.target.value = t.faults[0].tool if t.faults else t.plan(faults=True).batches()[0][0].tool
        self._target_changed()

    def _target_changed(self, _: object = None) -> None:
        kinds = [k for k in KINDS if _applies(self.target.value, k)]
        own = ", ".join(f"{f.kind} on {f.tool}" for f in TICKETS[self.ticket.value].faults) or "none; Atlas's own rules"
        keep = self.fault.value if self.fault.value in kinds else OWN
        self.fault.options = ([(f"the ticket's own faults ({own})", OWN), ("no injected failure", NONE)]
                              + [(f"{k}, every call to {self.target.value}", k) for k in kinds])
        self.fault.value = keep

    def _style_changed(self, _: object = None) -> None:
        composing = self.style.value == COMPOSE
        self.composer.layout.display = None if composing else "none"
        self.fault.disabled = composing

    def _refresh_preview(self, _: object = None) -> None:
        code = ErrorCode(self.code.value)
        self.retryable.value = RETRYABLE[code]
        branches = ", ".join(sorted(b.value for b in ALLOWED_BRANCHES[code]))
        self.allowed.value = f"<i>{code.value} allows next: {branches}</i>"
        failure, refusal = self._compose()
        if failure is None:
            self.preview.value = _box("The builder refuses this error", refusal, "#fde8e8")
        else:
            body = tool_error("toolu_playground", failure.code, failure.message, next=failure.next).body()
            self.preview.value = _box("What the model will read", json.dumps(body, indent=1, ensure_ascii=False), "#eef8ee")

    def _compose(self) -> tuple[ToolFailure | None, str]:
        try:
            return compose_error(self.code.value, self.message.value, branch=self.branch.value, tool=self.tool.value,
                                 argument=self.argument.value, say=self.say.value), ""
        except (ValueError, TypeError) as exc:  # the builder's words are the lesson; never a traceback
            return None, str(exc)

    def _clicked(self, _: object = None) -> None:
        try:
            self.run()
        except Exception as exc:  # a widget callback's traceback lands in no cell; say it here instead
            self.status.value = f"<b>The run could not start:</b> {escape(type(exc).__name__)}: {escape(str(exc))}"

    # --- running -------------------------------------------------------------------------

    def session(self) -> Session | None:
        """A fresh Atlas session for the current choices; None (with the reason in `status`) when refused."""
        seed, ticket = int(self.seed.value), self.ticket.value
        if self.style.value == COMPOSE:
            failure, refusal = self._compose()
            if failure is None:
                self.status.value = f"<b>Not run: the builder refused this error.</b> {escape(refusal)}"
                self.result.value = _box("The builder refuses this error", refusal, "#fde8e8")
                return None
            s = atlas_session(ticket, style="contract", faults=False, seed=seed)
            s.dispatcher.tools[self.target.value] = fail_first_call(s.dispatcher.tools[self.target.value], failure)
            return s
        chosen: bool | list[Fault] = (True if self.fault.value == OWN else False if self.fault.value == NONE
                                      else [always(self.target.value, self.fault.value)])
        return atlas_session(ticket, style=self.style.value, faults=chosen, seed=seed)

    def run(self) -> Run | None:
        """Run the model on the current choices and show the outcome; returns the Run, or None if refused."""
        session = self.session()
        self.last_run = None
        if session is None:
            return None
        self.choice = choose_model(self.model, seed=int(self.seed.value), profile=self.profile)
        self.last_run = run = run_agent(self.choice.client, session, model=self.choice.model, source=self.choice.source)
        self.result.value = keep_dollars(self._report(run, session))
        self.status.value = f"Ran {escape(self.ticket.value)} · {escape(self.choice.source.label)}"
        return run

    def _report(self, run: Run, session: Session) -> str:
        g = grade(run)
        seen = next_move(run)
        rows: list[tuple[str, str]] = []
        if seen is None:
            rows.append(("error", "none reached the model (no failure, or the harness's retries absorbed it)"))
        else:
            rows += [("error", f"{seen['tool']} failed; the model read: {_clip(seen['error'])}"),
                     ("next move", _clip(seen["move"]))]
            if self.choice.mode == "offline":
                rows.append(("why (stand-in)", _why(seen, session)))
        rows += [("stop reason", run.stop_reason),
                 ("grade", f"{'correct' if g.correct else 'not correct'}; labels: {', '.join(g.labels) or 'none'}")]
        rows += [("reason", r) for r in g.reasons]
        table = Table(rows, ["", ""], caption=f"{self.choice.source}. Graded against the ticket's expected outcome, "
                                              "which an injected failure can put out of reach.")
        return table._repr_html_() + run_html(run)

    def _repr_mimebundle_(self, **kwargs: object) -> MimeBundle:
        """The live panel, plus a static view of its settings: what a stored notebook shows before a run
        (scripts/run_notebooks.py stores no widget state, so it keeps only this view)."""
        bundle: MimeBundle = self.panel._repr_mimebundle_(**kwargs)  # ipywidgets ships no types
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["text/html"] = self.static_html()
        data["text/plain"] = self.static_text()
        return bundle

    def settings(self) -> list[tuple[str, str]]:
        """The panel's current choices, as (label, value) pairs a person can read."""
        labels = {value: label for label, value in self.fault.options}
        rows = [("ticket", f"{self.ticket.value} · {TICKETS[self.ticket.value].title}"), ("seed", str(self.seed.value)),
                ("tool to fail", self.target.value), ("wording", dict((v, k) for k, v in _STYLES)[self.style.value])]
        if self.style.value != COMPOSE:
            rows.insert(3, ("failure", labels.get(self.fault.value, str(self.fault.value))))
        return rows

    def static_text(self) -> str:
        head = f"Error playground ({self.choice.source}): run the cell to use its controls."
        return "\n".join([head] + [f"  {label}: {value}" for label, value in self.settings()])

    def static_html(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(v)}</td></tr>"
                       for k, v in self.settings())
        composed = self.preview.value if self.style.value == COMPOSE else ""
        return keep_dollars(f"<div>{self.label.value}<br><i>A static view of the playground's settings: run this cell, "
                            f"with the kernel running, to use its controls.</i><table>{rows}</table>{composed}"
                            f"{self.result.value}</div>")


def _applies(tool: str, kind: FaultKind) -> bool:
    """Whether Fault accepts this kind on this tool (only list tools can come back empty); Fault decides."""
    try:
        always(tool, kind)
    except ValueError:
        return False
    return True


def _why(seen: NextMove, session: Session) -> str:
    tools = session.dispatcher.tools
    schema = tools[seen["tool"]].input_schema if seen["tool"] in tools else {}
    r = read_error(seen["error"], tools=list(tools), arguments=schema.get("properties", {}))
    if r.branch is None:
        return ("no cue it can read (reading.CUES), so it fell back to a seeded draw from its profile: "
                "retry_same, vary_argument, apologise, fabricate or stop_correctly")
    extra = "".join(f"; {k} {v}" for k, v in (("tool", r.tool), ("argument", r.argument)) if v)
    return f"it read branch {r.branch} from cue '{r.cue}'{extra}"


def _clip(text: str, limit: int = 400) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _box(title: str, text: str, colour: str) -> str:
    return (f"<div style='background:{colour};padding:4px 8px'><b>{escape(title)}</b>"
            f"<pre style='white-space:pre-wrap;margin:0'>{escape(text)}</pre></div>")
