"""Where a wrong returned value came from: the line of the graded function's return; and, for
an exercise graded in place, a new tensor returned instead of written into the argument.

Read from the learner's source, so said only where the source leaves no doubt: a function with
one ``return`` statement returned from it, and one with none returned None from its end (a rank
that raised is a runtime error, never a wrong answer). With several ``return`` statements the
source does not say which ran, and nothing is said. A function graded in place that returns
something other than its argument is blamed only where the run agrees: a wrong rank's argument
still holds its own input wherever it is wrong.
"""

from __future__ import annotations

import ast
from typing import Any

from ...contract.protocol import CaseSpec, JobSpec, RawCase
from ...contract.values import call_of
from .matched import kept_own_input
from .said import Cause

#: the longest returned expression quoted in a message
QUOTED = 40


def _own(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of ``function``'s body, not those of functions or classes defined in it."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return found


def _defined(code: str, function: str) -> tuple[ast.FunctionDef, list[ast.AST]] | None:
    """The top-level plain function ``function`` of ``code`` and its own nodes; None when no
    such function is defined once (or it is a generator)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    if len(defs) != 1:
        return None
    nodes = _own(defs[0])
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
        return None
    return defs[0], nodes


def return_lines(code: str, function: str) -> list[int] | None:
    """The lines of the ``return`` statements of the top-level function ``function`` in
    ``code``; None when no such plain function is defined once (or it is a generator)."""
    found = _defined(code, function)
    if found is None:
        return None
    return sorted(n.lineno for n in found[1] if isinstance(n, ast.Return))


def _other_return(code: str, function: str) -> tuple[str, ast.Return] | None:
    """The first parameter of ``function`` and its first ``return`` of another value than
    that parameter or None (a parameter rebound by ``=`` is another value); None if none."""
    found = _defined(code, function)
    if found is None or not found[0].args.args:
        return None
    param = found[0].args.args[0].arg
    augmented = {id(n.target) for n in found[1] if isinstance(n, ast.AugAssign)}
    rebound = any(isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Store)
                  and id(n) not in augmented for n in found[1])
    for node in sorted((n for n in found[1] if isinstance(n, ast.Return)),
                       key=lambda n: n.lineno):
        value = node.value
        if value is None or isinstance(value, ast.Constant) and value.value is None:
            continue
        if isinstance(value, ast.Name) and value.id == param and not rebound:
            continue
        return param, node
    return None


def returned_instead(exercise: Any, job: JobSpec, spec: CaseSpec, raw: RawCase) -> Cause | None:
    """"You returned a new tensor; write the result into t": for an exercise graded in place
    whose function returns another value than its argument while a wrong rank's argument still
    holds that rank's own input wherever it is wrong; else None."""
    if exercise.output != "inplace":
        return None
    kept = kept_own_input(exercise, spec, raw)
    if kept is None or kept[1]:
        return None
    rank = kept[0]
    function = call_of(spec["inputs"][rank], job["function"])[0][0]
    other = _other_return(job["code"], function)
    if other is None:
        return None
    param, node = other
    expr = ast.unparse(node.value) if node.value is not None else ""
    expr = expr if len(expr) <= QUOTED else f"{expr[:QUOTED - 1]}…"
    # the function is not named: it may be named after the collective the exercise forbids
    return Cause(
        f"you returned a new tensor (`{expr}` at line {node.lineno}), but this exercise grades "
        f"its argument in place: the judge reads {param}, which still holds rank {rank}'s own "
        f"input where it is wrong. Write the result into {param} (e.g. {param}.copy_(result))",
        f"你返回了一个新张量（第 {node.lineno} 行的 `{expr}`），但本题按原地结果评判参数："
        f"评测读取的是 {param}，而它在出错之处仍是 rank {rank} 自己的输入。请把结果写入 "
        f"{param}（例如 {param}.copy_(result)）", named=True)


def returned_from(job: JobSpec, spec: CaseSpec) -> Cause | None:
    """"It returned that from line 23, the function's only return": for an exercise graded on
    what its function returns; None where the source does not say."""
    if job["output"] != "return":
        return None
    # the function whose return is graded: the last of each rank's calls
    last = {call_of(rank_input, job["function"])[0][-1] for rank_input in spec["inputs"]}
    if len(last) != 1:
        return None
    function = last.pop()
    lines = return_lines(job["code"], function)
    if lines is None or len(lines) > 1:
        return None
    # the function is not named: it may be named after the collective the exercise forbids
    if not lines:
        return Cause("The function has no return statement, so it returns None",
                     "该函数没有 return 语句，所以它返回 None")
    return Cause(f"The function returned it at line {lines[0]}, its only return",
                 f"该函数在第 {lines[0]} 行（它唯一的 return）返回了这个值")
