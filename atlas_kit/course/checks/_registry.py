"""The exercises' registry, what a check says it judged, and what "not answered yet" is (the placeholder `...`).

Each chapter's module registers its checks here with `exercise`, saying what they decide: structure, contradictions
between the words and the structure, forbidden words; an idea no rule can decide is `Compare`d by the learner.
scripts/make_exercises.py writes every gap as `...`: a value still `...`, or a function whose body is only `...`
(read from its source, never its bytecode), is unanswered. Chapters 00 to 16 use it through `check` and `hint`.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from html import escape
from typing import Callable, Literal
from ...types.exceptions import AtlasKitValueError

BLANK = "Not answered yet: replace the ... in the cell above with your answer, run it, then run this check."
PLACEHOLDER = ...  # what an exercise's gap is: Python's own "to be written"

Kind = Literal["structure", "contradiction", "forbidden"]
KINDS: tuple[Kind, ...] = ("structure", "forbidden", "contradiction")
LABELS: dict[Kind, str] = {"structure": "Structure", "contradiction": "Contradiction", "forbidden": "Forbidden"}
_JUDGED: dict[Kind, str] = {"structure": "structure", "contradiction": "contradictions", "forbidden": "forbidden words"}


@dataclass(frozen=True)
class Finding:
    """What a check found wrong, and of which kind: structure (fields, outcomes, names, length), a contradiction
    between the words and the structure, or forbidden words (an echo, internals, blame)."""

    kind: Kind
    text: str


Grader = Callable[[object], "str | Finding | None"]  # None when right; a str is a structure finding


@dataclass(frozen=True)
class Compare:
    """What a check leaves to the learner: the idea it cannot decide, the reference answer, and two rubric lines."""

    unjudged: str
    reference: str
    rubric: tuple[str, str]


@dataclass(frozen=True)
class Feedback:
    """The result of a check: whether the answer is right, what was judged and why; with `rubric`, what was not."""

    exercise: str
    ok: bool
    message: str
    reference: str = ""
    rubric: tuple[str, ...] = ()

    def __repr__(self) -> str:
        lines = [f"{'✓' if self.ok else '✗'} Exercise {self.exercise}: {self.message}"]
        if self.reference:
            lines.append(f"  reference: {self.reference}")
        lines += [f"  {i}. {line}" for i, line in enumerate(self.rubric, 1)]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        colour = "#2e7d32" if self.ok else "#c62828"
        more = f"<br>reference: <i>{escape(self.reference)}</i>" if self.reference else ""
        more += "".join(f"<br>{i}. {escape(line)}" for i, line in enumerate(self.rubric, 1))
        return (f"<div style='color:{colour}'><b>{'✓' if self.ok else '✗'} Exercise {escape(self.exercise)}</b>: "
                f"{escape(self.message)}{more}</div>")


@dataclass(frozen=True)
class Exercise:
    """One registered exercise: its title, its grading function, what it judges, what a right answer earns,
    what it leaves to the learner to compare, and its hints."""

    title: str
    grade: Grader
    right: str
    hints: tuple[str, ...]
    judges: tuple[Kind, ...] = ("structure",)
    compare: Compare | None = None

    def said(self, found: str | Finding | None) -> Feedback:
        """The feedback for what `grade` returned: the finding with its kind first, or what a right answer earns."""
        if found == BLANK:  # a grader that found the gap still unanswered
            return Feedback("", False, BLANK)
        if found is not None:
            finding = found if isinstance(found, Finding) else Finding("structure", found)
            return Feedback("", False, f"{LABELS[finding.kind]}: {finding.text}")
        judged = [_JUDGED[k] for k in KINDS if k in self.judges]
        head = (judged[0] if len(judged) == 1 else ", ".join(judged[:-1]) + " and " + judged[-1]).capitalize()
        if self.compare is None:
            return Feedback("", True, f"{head}: right. {self.right}")
        return Feedback("", True, f"{head}: right. {self.right} Not judged: {self.compare.unjudged}; compare yours with "
                                  "the reference below.", self.compare.reference, self.compare.rubric)


EXERCISES: dict[str, Exercise] = {}


def exercise(key: str, title: str, *, right: str, hints: tuple[str, ...] = (), judges: tuple[Kind, ...] = ("structure",),
             compare: Compare | None = None) -> Callable[[Grader], Grader]:
    """Register a grading function for exercise `key` ("NN.k"): it returns None, or what to change.

    judges: what the function decides (structure, contradiction, forbidden), said in every feedback;
    compare: the idea it leaves to the learner, shown with the reference answer and a rubric when it passes.
    """
    def register(grade: Grader) -> Grader:
        if key in EXERCISES:
            raise AtlasKitValueError(f"exercise {key!r} is registered twice; give each exercise its own NN.k key.")
        if not judges or any(k not in KINDS for k in judges):
            raise AtlasKitValueError(f"exercise {key!r}: judges must name what the check decides, from {', '.join(KINDS)}.")
        EXERCISES[key] = Exercise(title, grade, right, hints, tuple(judges), compare)
        return grade
    return register


def is_blank(answer: object) -> bool:
    """True for the placeholder `...` (or None), or a function whose body is still the placeholder.

    A body is the placeholder when, past its docstring, it holds only `...` (or `pass`, or a bare return):
    it does nothing. A function whose source cannot be read (built by exec, say) is taken as answered.
    """
    if answer is PLACEHOLDER or answer is None:
        return True
    if not (inspect.isfunction(answer) or inspect.ismethod(answer)):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(answer)))
    except (OSError, TypeError, SyntaxError):
        return False
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False  # a lambda: an expression, never the gap
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    return all(_does_nothing(statement) for statement in body)


def _does_nothing(statement: ast.stmt) -> bool:
    """`...`, `pass`, `return`, `return None` or `return ...`: a statement that leaves the gap as it was."""
    if isinstance(statement, ast.Pass) or isinstance(statement, ast.Return) and statement.value is None:
        return True
    if isinstance(statement, (ast.Expr, ast.Return)) and isinstance(statement.value, ast.Constant):
        return statement.value.value is PLACEHOLDER or statement.value.value is None
    return False
