"""Find and read the learners' notebooks; say whose each is and which chapter; plan each chapter's checks.

The exercises of a chapter and their answer expressions come from its solution notebook's
`check("NN.k", answer)` calls and the checks registry, never from a learner's code.
"""
from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
from pathlib import Path
from typing import Iterable

from ...types.sets import JSONObject
from .records import ChapterPlan, ExerciseSpec, Submission
from ...types.exceptions import AtlasKitValueError

_NN = re.compile(r"(?<![0-9])([0-9]{2})(?![0-9])")
_TITLE = re.compile(r"^#\s*([0-9]{2})\b")
_CLAIM = re.compile(r"✓ Exercise (?:<[^>]*>)?\s*([0-9]{2}\.[0-9]+)")  # what a right check prints (text or HTML)
# A name is tried only where a run of name characters starts, so a long one (a pasted blob) is read in linear time.
_KEY_NAME = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]*API_KEY|(?<![\w.])\.env\b")
_NET_MODULES = {"socket", "urllib", "requests", "httpx", "http", "aiohttp", "urllib3", "ftplib", "smtplib"}


def solution_notebooks(folder: Path) -> dict[str, Path]:
    """{"02": solutions/02_four_branches.ipynb, ...}: every chapter that has a solution notebook."""
    return {p.name[:2]: p for p in sorted(folder.glob("[0-9][0-9]_*.ipynb"))}


def registry() -> dict[str, str]:
    """{exercise key: title} for every check the checks package registers (imports each chNN module)."""
    from .. import checks

    for info in pkgutil.iter_modules(checks.__path__):
        if re.fullmatch(r"ch[0-9]{2}", info.name):
            try:
                importlib.import_module(f"{checks.__name__}.{info.name}")
            except Exception:  # a broken check module: the kernel's fresh import will say so per exercise
                continue
    return {key: ex.title for key, ex in checks.EXERCISES.items()}


def check_calls(sources: Iterable[str]) -> dict[str, str]:
    """{key: answer expression} of each `check("NN.k", expression)` call in these code cells, first call wins."""
    found: dict[str, str] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:  # a magic or a learner's typo: no check call to read here
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and _named(node.func, "check") and len(node.args) >= 2
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found.setdefault(node.args[0].value, ast.unparse(node.args[1]))
    return found


def chapter_plan(chapter: str, solution: Path, titles: dict[str, str]) -> ChapterPlan:
    """The exercises of `chapter`: the solution's check calls, plus any registered key it never checks."""
    cells = _read_json(solution)[1]
    expressions = check_calls(code for code, _ in cells)
    keys = list(expressions) + sorted(k for k in titles if k.split(".")[0] == chapter and k not in expressions)
    specs = tuple(ExerciseSpec(k, titles.get(k, k), expressions.get(k)) for k in keys)
    return ChapterPlan(chapter, solution.stem, specs)


def find_notebooks(paths: Iterable[Path]) -> list[Path]:
    """The .ipynb files among `paths`, searching folders recursively (checkpoints skipped)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += [p for p in sorted(path.rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
        elif path.is_file():
            found.append(path)
    return list(dict.fromkeys(p.resolve() for p in found))


def read_submissions(files: list[Path], stems: dict[str, str]) -> list[Submission]:
    """Read each file; a learner's name comes from metadata or the file name, made unique across the class."""
    root = _common_folder(files)
    subs = [_read(path, root, stems) for path in files]
    counts: dict[str, int] = {}
    for sub in subs:
        counts[sub.learner] = counts.get(sub.learner, 0) + 1
    for sub in subs:
        if counts[sub.learner] > 1:
            sub.learner = f"{sub.learner} ({sub.file})"
    return subs


def static_notes(cells: list[tuple[str, tuple[str, ...]]], expected: Iterable[str]) -> list[str]:
    """What a teacher should know from the code alone: a key looked for, check redefined, check calls missing."""
    notes = []
    code = "\n".join(source for source, _ in cells)
    keys = sorted(set(_KEY_NAME.findall(code)))
    if keys:
        notes.append(f"its code looks for {', '.join(keys)}; the grader's kernel has no key in its environment")
    trees = [t for t in (_parse(source) for source, _ in cells) if t is not None]
    if any(_redefines_check(t) for t in trees):
        notes.append("it redefines check; the grade ignores that, since the grader calls a fresh copy of its own")
    imported = sorted({name for t in trees for name in _imports(t)} & _NET_MODULES)
    if imported:
        notes.append(f"it imports {', '.join(imported)}; network access is blocked while grading")
    missing = [k for k in expected if k not in check_calls(source for source, _ in cells)]
    if missing:
        notes.append(f"no check(...) call for {', '.join(missing)} (deleted or renamed); graded from the answer "
                     "all the same")
    return notes


def chapter_of(chapter: object, stem: str, title: str | None, stems: dict[str, str]) -> tuple[str | None, str]:
    """(chapter, where it came from): metadata, else the notebook's title, else the file name.

    What the notebook says of itself comes before its name: a chapter 05 notebook saved as 02_four_branches.ipynb
    is chapter 05's (and, under --chapter 02, the wrong chapter)."""
    if chapter is not None and str(chapter).strip().isdigit() and f"{int(str(chapter).strip()):02d}" in stems:
        return f"{int(str(chapter).strip()):02d}", "metadata"
    if title in stems:
        return title, "title"
    for nn, known in stems.items():
        if known in stem:
            return nn, "file name"
    tokens = {t for t in _NN.findall(stem) if t in stems}
    if len(tokens) == 1:
        return tokens.pop(), "file name"
    return None, ""


def _read(path: Path, root: Path, stems: dict[str, str]) -> Submission:
    shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    try:
        meta, cells, title, claims = _read_json(path)
    except ValueError as why:
        learner = _learner_from(path, chapter_of(None, path.stem, None, stems)[0], stems)
        return Submission(path, shown, learner, None, status="unreadable", notes=[f"not a notebook: {why}"])
    chapter, source = chapter_of(_meta_chapter(meta), path.stem, title, stems)
    named = meta.get("learner")
    learner = named.strip()[:80] if isinstance(named, str) and named.strip() else _learner_from(path, chapter, stems)
    sub = Submission(path, shown, learner, chapter, cells, claims=claims)
    named_for = chapter_of(None, path.stem, None, stems)[0]
    if chapter is not None and title in stems and title != chapter:
        sub.notes.append(f"its title says chapter {title}, its {source} says chapter {chapter}")
    elif source == "title" and named_for is not None and named_for != chapter:
        sub.notes.append(f"its file name says chapter {named_for}, its title says chapter {chapter}")
    return sub


def _read_json(path: Path) -> tuple[JSONObject, list[tuple[str, tuple[str, ...]]], str | None, tuple[str, ...]]:
    """(metadata, code cells as (source, tags), chapter number in the first heading, the exercises a saved output
    shows a ✓ for in a cell that does not check them); ValueError if not a notebook."""
    raw = path.read_bytes()
    if not raw.strip():
        raise AtlasKitValueError("the file is empty" if not raw else "the file holds only blank space")
    if raw.startswith(b"PK\x03\x04"):
        raise AtlasKitValueError("the file is a zip archive; unzip it and hand in the .ipynb inside")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise AtlasKitValueError("the file is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise AtlasKitValueError(f"the file is not JSON ({err.msg} at line {err.lineno})") from None
    if isinstance(data, dict) and data.get("nbformat") == 3:
        import nbformat

        data = nbformat.convert(nbformat.from_dict(data), 4)
    if isinstance(data, dict) and isinstance(data.get("nbformat"), int) and data["nbformat"] not in (3, 4):
        raise AtlasKitValueError(f"it says it is nbformat {data['nbformat']}; this grader reads nbformat 4 (and 3)")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise AtlasKitValueError("the JSON has no list of cells, so it is not a Jupyter notebook")
    if not data["cells"]:
        raise AtlasKitValueError("the notebook has no cells: nothing to grade")
    meta: JSONObject = data["metadata"] if isinstance(data.get("metadata"), dict) else {}
    cells: list[tuple[str, tuple[str, ...]]] = []
    title: str | None = None
    claims: set[str] = set()
    for cell in data["cells"]:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "code":
            tags = (cell.get("metadata") or {}).get("tags") if isinstance(cell.get("metadata"), dict) else None
            cells.append((source, tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else ()))
            # A ✓ in the output of a cell that does not check that exercise: a stale output of a check cell is not one.
            claims.update(set(_CLAIM.findall(_output_text(cell.get("outputs")))) - _keys_passed(source))
        elif cell.get("cell_type") == "markdown" and title is None and (m := _TITLE.match(source.lstrip())):
            title = m.group(1)
    return meta, cells, title, tuple(sorted(claims))


def _keys_passed(source: str) -> set[str]:
    """The exercise keys this code passes as a call's first argument: `check("02.1", ...)`, however it is named."""
    tree = _parse(source)
    return {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)} if tree else set()


def _output_text(outputs: object) -> str:
    """Every text a code cell's saved outputs hold: streams, and each display's text/plain and text/html."""
    texts: list[str] = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        for text in (output.get("text"), data.get("text/plain"), data.get("text/html")):  # type: ignore[union-attr]
            texts.append("".join(map(str, text)) if isinstance(text, list) else str(text) if text else "")
    return "\n".join(texts)


def _meta_chapter(meta: JSONObject) -> object:
    nested = meta.get("atlas_kit")
    return nested.get("chapter") if isinstance(nested, dict) and "chapter" in nested else meta.get("chapter")


def _learner_from(path: Path, chapter: str | None, stems: dict[str, str]) -> str:
    """alice_02_four_branches.ipynb → alice; alice/02_four_branches.ipynb → alice; else the file's stem."""
    rest = path.stem.replace(stems.get(chapter or "", "\0"), "").strip(" _-.")
    return rest or path.parent.name or path.stem


def _common_folder(files: list[Path]) -> Path:
    parents = [p.parent for p in files]
    root = parents[0] if parents else Path(".")
    while any(not p.is_relative_to(root) for p in parents) and root != root.parent:
        root = root.parent
    return root


def _named(func: ast.expr, name: str) -> bool:
    return (isinstance(func, ast.Name) and func.id == name) or (isinstance(func, ast.Attribute) and func.attr == name)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _redefines_check(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "check":
            return True
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_named(t, "check") for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = getattr(node, "module", None) or ""
            if any((a.asname or a.name) == "check" for a in node.names) and module not in ("atlas_kit.course.checks", "atlas_kit.course.checks.run"):
                return True
    return False


def _imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names
