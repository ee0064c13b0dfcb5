"""Take an answer out of the learner's kernel as data, so a clean kernel can judge it (judge.py rebuilds it).

`take_answer` is never imported by the learner's kernel: probe.cell sends its source, after the learner's cells.
It writes JSON, never pickle, so reading it runs none of the learner's code:

- plain values as JSON; `{"$tuple": [...]}`, `{"$set"...}`, `{"$frozenset"...}`, `{"$dict": [[k, v], ...]}`,
  `{"$float": "nan"}`, `{"$ellipsis": true}`; only the exact built-in types (a `str` subclass is not a `str`);
- `{"$enum": "module:Name", "value": ...}` and `{"$dataclass": "module:Name", "fields": {...}}` for atlas_kit's
  own enums and dataclasses (rebuilt with their constructor);
- `{"$ref": "module:qualname"}` for a function or class that lives in a module (`json.dumps`, `tool_error`);
  `{"$module": "json"}`;
- `{"$function": {"name", "source", "lambda", "closure"}}` for a function the notebook defined: its source, read
  as the kernel ran it. The names its source uses go in `env`, shared by every function of the answer: each
  encoded as above where it can be, or else (`VALIDATOR = jsonschema.Draft202012Validator(...)`, a class, a World)
  the notebook's own top-level statement that binds it, in `statements`, run again in notebook order.

What cannot be taken out (an instance of a class the notebook defined, a generator) is named in `problem`.
"""
from __future__ import annotations


def take_answer(expression: str, cells: list[str], payload_path: str, namespace: dict[str, object]) -> None:
    """Evaluate `expression` in the notebook's `namespace` and write what judge.rebuild needs to `payload_path`.

    Also lists the atlas_kit names the notebook's cells replaced in its own kernel (they change no grade: the
    answer is judged elsewhere; the teacher is told)."""
    import ast
    import builtins
    import dataclasses
    import enum
    import inspect
    import json
    import math
    import os
    import sys
    import textwrap
    import types

    cells_folder = os.path.dirname(sys._getframe(1).f_code.co_filename)  # the calling cell's: where IPython keeps them
    budget = [1_000_000]  # values encoded at most: a self-referencing or huge answer stops with a problem

    class Unsupported(Exception):
        pass

    def from_notebook(code: object) -> bool:
        filename = getattr(code, "co_filename", None)
        return isinstance(filename, str) and (os.path.dirname(filename) == cells_folder
                                              or filename.startswith("<ipython-input"))

    def ref(obj: object) -> str | None:
        """'module:qualname' when that path leads back to `obj` itself, else None."""
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or module == "__main__" or "<" in qualname:
            return None
        found: object = sys.modules.get(module)
        for part in qualname.split("."):
            found = getattr(found, part, None)
        return f"{module}:{qualname}" if found is obj else None

    def ours(kind: type) -> str | None:
        path = ref(kind)
        return path if path is not None and path.startswith("atlas_kit.") else None

    def encode(value: object, depth: int = 0) -> object:
        budget[0] -= 1
        if budget[0] < 0 or depth > 200:
            raise Unsupported("the answer is too large or too deeply nested to take out")
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is float:
            return value if math.isfinite(value) else {"$float": repr(value)}  # type: ignore[arg-type]
        if value is Ellipsis:
            return {"$ellipsis": True}
        if kind is list:
            return [encode(v, depth + 1) for v in value]  # type: ignore[attr-defined]
        if kind in (tuple, set, frozenset):
            items = [encode(v, depth + 1) for v in value]  # type: ignore[attr-defined]
            return {f"${kind.__name__}": items}
        if kind is dict:
            return {"$dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}  # type: ignore[attr-defined]
        if isinstance(value, types.ModuleType):
            return {"$module": value.__name__}
        if isinstance(value, enum.Enum) and ours(kind):
            return {"$enum": ours(kind), "value": encode(value.value, depth + 1)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type) and ours(kind):
            return {"$dataclass": ours(kind), "fields": {f.name: encode(getattr(value, f.name), depth + 1)
                                                         for f in dataclasses.fields(value) if f.init}}
        if isinstance(value, types.FunctionType) and from_notebook(value.__code__):
            return {"$function": function(value, depth)}
        path = ref(value)
        if path is not None:
            return {"$ref": path}
        raise Unsupported(f"it holds a {kind.__name__}, which the grader cannot take out of the notebook (it takes "
                          "plain values, atlas_kit's values, and functions)")

    def source_of(fn: types.FunctionType) -> tuple[str, bool]:
        try:
            text = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            raise Unsupported(f"the source of {fn.__name__} cannot be read (was it built with exec?)") from None
        if fn.__name__ != "<lambda>":
            return text, False
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = ast.parse("(" + text.strip().rstrip(",") + ")") if text.strip() else ast.parse("")
        arity = fn.__code__.co_argcount
        names = list(fn.__code__.co_varnames[:arity])
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and [a.arg for a in n.args.args] == names]
        if len(found) != 1:
            raise Unsupported("a lambda's source cannot be told apart from the others on its line; use def")
        return str(ast.unparse(found[0])), True

    def global_names(code: types.CodeType) -> set[str]:
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= global_names(const)
        return names

    def function(fn: types.FunctionType, depth: int) -> dict[str, object]:
        source, is_lambda = source_of(fn)
        tree = ast.parse(source)
        top = tree.body[0] if tree.body else None
        outside = ([*top.decorator_list, *top.args.defaults, *top.args.kw_defaults, *top.args.args,
                    top.returns]
                   if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else [])
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        # Names the code looks up globally (co_names holds attributes too, hence the AST's names), and those the
        # def line evaluates: decorators, defaults, annotations.
        used = (used & global_names(fn.__code__)) | {n.id for o in outside if o is not None for n in ast.walk(o)
                                                     if isinstance(n, ast.Name)}
        closure = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                if cell.cell_contents is fn:  # a function that calls itself: its own def binds the name again
                    continue
                closure[name] = encode(cell.cell_contents, depth + 1)
            except ValueError:  # an empty cell: a name the function binds later
                continue
        for name in sorted(used - set(fn.__code__.co_freevars)):
            if name in fn.__globals__:
                resolve(name, fn.__globals__, depth)
        return {"name": fn.__name__, "source": source, "lambda": is_lambda, "closure": closure}

    env: dict[str, object] = {}
    statements: dict[str, tuple[int, int, str]] = {}
    missing: list[str] = []
    resolving: set[str] = set()

    def resolve(name: str, scope: dict[str, object], depth: int) -> None:
        if name in resolving or name.startswith("_atlas_grader"):
            return
        resolving.add(name)
        value = scope[name]
        if getattr(builtins, name, object()) is value:
            return
        if hasattr(builtins, name) and not from_notebook(getattr(value, "__code__", None)):
            return  # the kernel's own stand-in for a built-in (IPython binds its own open): the clean one will do
        try:
            env[name] = encode(value, depth + 1)
        except Unsupported:
            found = defining(name)
            if found is None:
                missing.append(f"`{name}` (a {type(value).__name__})")
                return
            statements[name] = found
            tree = ast.parse(found[2])
            for used in sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}):
                if used in scope:
                    resolve(used, scope, depth)

    def binds(statement: ast.stmt) -> set[str]:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {statement.name}
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in statement.names}
        targets = statement.targets if isinstance(statement, ast.Assign) else (
            [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value is not None else [])
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}

    def defining(name: str) -> tuple[int, int, str] | None:
        """(cell, statement, source) of the last top-level statement of the notebook that binds `name`."""
        last = None
        for c, code in enumerate(cells):
            code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())
            try:
                tree = ast.parse(code)
            except SyntaxError:
                continue
            lines = code.splitlines()
            for s, statement in enumerate(tree.body):
                if name in binds(statement):
                    first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
                    last = (c, s, "\n".join(lines[first - 1: statement.end_lineno]))
        return last

    def replaced_names() -> list[str]:
        """What the notebook's cells replaced in atlas_kit, importlib, builtins, json and the import hooks: a
        function or class of its own, a mock or a functools.partial (atlas_kit binds none at module level)."""
        def replaced(value: object, ours: bool = False) -> bool:
            try:
                if type(value).__module__ in ("unittest.mock", "functools") and not isinstance(value, type) and ours:
                    return "partial" in type(value).__name__ or type(value).__module__ == "unittest.mock"
                for candidate in (value, getattr(value, "__func__", None), getattr(value, "fget", None)):
                    if from_notebook(getattr(candidate, "__code__", None)):
                        return True
                return isinstance(value, type) and value.__module__ == "__main__"
            except Exception:  # an object whose attributes raise is not a replaced function
                return False

        found = [f"sys.meta_path[{i}]" for i, hook in enumerate(sys.meta_path) if replaced(type(hook))]
        for name, module in list(sys.modules.items()):
            if module is None or not any(name == p or name.startswith(p + ".")
                                         for p in ("atlas_kit", "importlib", "builtins", "json")):
                continue
            for attr, value in list(vars(module).items()):
                if replaced(value, name.startswith("atlas_kit")):
                    found.append(f"{name}.{attr}")
                elif isinstance(value, type) and str(getattr(value, "__module__", "")).startswith("atlas_kit"):
                    found += [f"{value.__module__}.{value.__qualname__}.{member}"
                              for member, inner in list(vars(value).items()) if replaced(inner)]
        return sorted(set(found))

    result: dict[str, object] = {"replaced": replaced_names()}
    try:
        answer = eval(expression, namespace)
    except NameError as exc:
        result.update(kind="undefined", detail=str(exc))
    except Exception as exc:
        result.update(kind="raised", detail=f"{type(exc).__name__}: {exc}")
    else:
        try:
            value = encode(answer)
        except Unsupported as why:
            result.update(kind="unsupported", detail=str(why))
        else:
            if missing:
                result.update(kind="unsupported", detail=f"it uses {', '.join(missing[:3])}, which the grader could "
                                                         "not take out of the notebook or find a statement for")
            else:
                ordered = sorted(statements.items(), key=lambda item: item[1][:2])
                result.update(kind="taken", value=value, env=env, statements=[[n, s[2]] for n, s in ordered])
    with open(payload_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
