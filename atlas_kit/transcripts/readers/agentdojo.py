"""AgentDojo's runs (ethz-spylab/agentdojo): a runs folder as the benchmark writes it (the benign run of each user
task is `<model>/<suite>/<user_task>/none/none.json`), one run file, or a bundle of run files (JSONL, gzipped or not,
each line a file's relative `path` and its text verbatim as `run`: how atlas_kit ships them, `write_bundle`).

A tool message's `error` is the error flag, and its text is what the model read (its `content` is then empty);
`utility` is success; the model is the run's own `pipeline_name`, never a folder's name. Chapter "Errors in the wild".
"""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import TypeGuard

from ...types.walk import canonical
from ..model import Episode, Format, ModelText, Outcome, ToolCall, ToolResult, TranscriptError, Turn, UserText
from .base import CallBook, arguments_of, evidence_of, load_json, load_jsonl, read_text

BENIGN = ("none", "none.json")
"""The last two parts of a benign run's path: no attack, no injection task."""
BUNDLE_KEYS = ("path", "run")
_NEEDED = ("suite_name", "pipeline_name", "user_task_id", "utility", "messages")


def run_files(folder: Path) -> list[Path]:
    """The benign run files under `folder` (`.../none/none.json`), sorted by their path."""
    return sorted(p for p in folder.rglob(BENIGN[1]) if p.parent.name == BENIGN[0] and p.is_file())


def is_run(value: object) -> TypeGuard[dict[str, object]]:
    """Whether `value` has an AgentDojo run's shape: an object with pipeline_name, user_task_id and messages."""
    return isinstance(value, dict) and all(k in value for k in ("pipeline_name", "user_task_id", "messages"))


def is_bundle_line(value: object) -> TypeGuard[dict[str, object]]:
    """Whether `value` is one line of a bundle: an object with exactly a `path` and a `run`."""
    return isinstance(value, dict) and sorted(value) == sorted(BUNDLE_KEYS)


def write_bundle(folder: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Pack the benign runs under `folder` into one gzipped JSONL at `out`, each file's text verbatim beside its path
    relative to `folder`, in path order, with no timestamp in the gzip header (the same runs give the same bytes).
    Returns how many runs were packed."""
    root = Path(folder)
    files = run_files(root)
    if not files:
        raise TranscriptError(str(root), "", "holds no AgentDojo benign runs (<model>/<suite>/<user_task>/none/"
                              "none.json); give the benchmark's runs folder.")
    lines = [json.dumps({"path": f.relative_to(root).as_posix(), "run": f.read_text(encoding="utf-8")})
             for f in files]
    Path(out).write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), compresslevel=9, mtime=0))
    return len(files)


class AgentDojoReader:
    """Reads a runs folder, one run file, or a bundle. An episode's id is `<pipeline_name>/<suite>/<user_task>`, its
    task `<suite>/<user_task>` (task ids repeat across suites), its trial unknown (one run per model and task);
    metadata keeps the run's relative `path`, its `suite` and, when the run itself failed (a server error, a context
    too long), `run_error` true: such a run counts, as the benchmark counts it, with utility false."""

    format: Format = "agentdojo"

    def read(self, path: Path) -> list[Episode]:
        if path.is_dir():
            files = run_files(path)
            if not files:
                raise TranscriptError(str(path), "", "is a folder with no AgentDojo runs (<model>/<suite>/"
                                      "<user_task>/none/none.json); give transcript files or a runs folder.")
            return [run_episode(load_json(f), f, "", file=path, record=i, line=None,
                                relpath=f.relative_to(path).as_posix()) for i, f in enumerate(files)]
        text = read_text(path)
        try:
            value: object = json.loads(text)
        except json.JSONDecodeError:  # a bundle is JSONL: one {path, run} per line
            return [self._bundled(path, item, i, n) for i, (n, item) in enumerate(load_jsonl(path, text))]
        if is_run(value):
            return [run_episode(value, path, "", file=path, record=0, line=None, relpath=path.name)]
        if not isinstance(value, list) or not value:
            raise TranscriptError(str(path), "", "is not an AgentDojo run (an object with pipeline_name, "
                                  "user_task_id and messages) or a bundle of them (one {path, run} per line).")
        return [self._bundled(path, item, i, None) for i, item in enumerate(value)]

    def _bundled(self, path: Path, item: object, record: int, line: int | None) -> Episode:
        where = f"line {line}" if line is not None else f"record {record}"
        if not is_bundle_line(item):
            raise TranscriptError(str(path), where, "is not a bundled run; expected an object with 'path' (the run "
                                  "file's relative path) and 'run' (its text, or its JSON).")
        rel, run = item["path"], item["run"]
        if not isinstance(rel, str) or not rel:
            raise TranscriptError(str(path), where, "'path' is not a non-empty string; expected the run file's path.")
        where = f"{where} ({rel})"
        if isinstance(run, str):
            try:
                run = json.loads(run)
            except json.JSONDecodeError as err:
                raise TranscriptError(str(path), where, f"'run' is not JSON ({err.msg}, line {err.lineno}); expected "
                                      "the run file's text.") from None
        return run_episode(run, path, where, file=path, record=record, line=line, relpath=rel)


def run_episode(run: object, path: Path, where: str, *, file: Path, record: int, line: int | None,
                relpath: str) -> Episode:
    """One run as an Episode; `path` and `where` name the run in any error (the run file itself, or the bundle and
    its line), `file` is what was read (the folder, the bundle or the file)."""
    if not isinstance(run, dict):
        raise TranscriptError(str(path), where, "is not an object; expected an AgentDojo run with suite_name, "
                              "pipeline_name, user_task_id, utility and messages.")
    missing = [k for k in _NEEDED if k not in run]
    if missing:
        raise TranscriptError(str(path), where, f"has no {', '.join(missing)}; expected an AgentDojo run with "
                              "suite_name, pipeline_name, user_task_id, utility and messages.")
    suite, task, utility, messages = run["suite_name"], run["user_task_id"], run["utility"], run["messages"]
    if not (isinstance(suite, str) and isinstance(task, str) and isinstance(messages, list)):
        raise TranscriptError(str(path), where, "expected suite_name and user_task_id strings and messages a list.")
    if not isinstance(utility, bool):
        raise TranscriptError(str(path), where, f"'utility' is {utility!r}; expected true or false.")
    name = run["pipeline_name"]
    model = name if isinstance(name, str) and name else None
    turns, system = _turns(messages, path, where)
    return Episode(id=f"{model or 'model unknown'}/{suite}/{task}", format="agentdojo", file=str(file),
                   record=record, line=line, turns=turns, outcome=Outcome(utility, None), evidence=evidence_of(model),
                   task_id=f"{suite}/{task}", trial=None, model=model, system=system,
                   metadata={"suite": suite, "path": relpath, "run_error": run.get("error") is not None})


def _text(content: object, path: Path, at: str) -> str:
    """A message's content as text: a string, nothing (null), or text blocks ({"type": "text", "content": ...})."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "\n".join(b["content"] for b in content if isinstance(b, dict) and isinstance(b.get("content"), str))
    raise TranscriptError(str(path), at, "'content' is not text; expected a string, null or a list of text blocks.")


def _turns(messages: list[object], path: Path, where: str) -> tuple[tuple[Turn, ...], str]:
    turns: list[Turn] = []
    system: list[str] = []
    book = CallBook(path)
    called: dict[str, tuple[str, object]] = {}  # call id -> (function, args): what a result's own copy can match
    for i, m in enumerate(messages):
        at = f"{where}, message {i}" if where else f"message {i}"
        if not isinstance(m, dict):
            raise TranscriptError(str(path), at, "is not an object; expected a message with 'role'.")
        role, text = m.get("role"), _text(m.get("content"), path, at)
        if role == "system":
            system.append(text)
        elif role == "user":
            turns.append(UserText(text, i))
        elif role == "assistant":
            turns += [ModelText(text, i)] if text.strip() else []
            turns += _calls(m.get("tool_calls"), i, book, called, path, at)
        elif role == "tool":
            error = m.get("error")
            if error is not None and not isinstance(error, str):
                raise TranscriptError(str(path), at, f"'error' is {type(error).__name__}; expected the error's text "
                                      "or null.")
            call_id = _answered(m, book, called, at)
            turns.append(ToolResult(call_id, error is not None, "flag", text if error is None else error, i))
        else:
            raise TranscriptError(str(path), at, f"has role {role!r}; expected system, user, assistant or tool "
                                  "(an AgentDojo run).")
    return tuple(turns), "\n\n".join(s for s in system if s)


def _calls(calls: object, i: int, book: CallBook, called: dict[str, tuple[str, object]], path: Path,
           at: str) -> list[Turn]:
    """An assistant's tool calls; a call with no id (some models' adapters give none) is named call@<message>.<k>."""
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise TranscriptError(str(path), at, "'tool_calls' is not a list; expected a list of calls or null.")
    found: list[Turn] = []
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(function, str) or not function:
            raise TranscriptError(str(path), f"{at}, tool call {k}", "has no 'function' (the tool's name); expected "
                                  "{'function': ..., 'args': {...}, 'id': ...}.")
        given = call.get("id")
        call_id = given if isinstance(given, str) and given else f"call@{i}.{k}"
        book.made(call_id)
        called[call_id] = (function, call.get("args"))
        found.append(ToolCall(call_id, function, arguments_of(call.get("args") or {}), i))
    return found


def _answered(message: dict[str, object], book: CallBook, called: dict[str, tuple[str, object]], at: str) -> str:
    """The call a tool message answers: its tool_call_id when it has one; else the oldest open call with the same
    function and arguments as the message's own `tool_call` (AgentDojo answers a step's calls in order)."""
    given = message.get("tool_call_id")
    if isinstance(given, str) and given:
        return book.answered(given, at)
    echo = message.get("tool_call")
    if not isinstance(echo, dict):
        return book.oldest(at)
    function, args = echo.get("function"), canonical(echo.get("args"))
    return book.oldest(at, lambda c: c in called and called[c][0] == function and canonical(called[c][1]) == args)
