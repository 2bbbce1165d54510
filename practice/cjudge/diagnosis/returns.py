"""Where a wrong returned value came from: the line of the graded function's return.

Read from the learner's source, so said only where the source leaves no doubt: a function with
one ``return`` statement returned from it, and one with none returned None from its end (a rank
that raised is a runtime error, never a wrong answer). With several ``return`` statements the
source does not say which ran, and nothing is said.
"""

from __future__ import annotations

import ast

from ..protocol import CaseSpec, JobSpec
from ..values import call_of
from .said import Cause


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


def return_lines(code: str, function: str) -> list[int] | None:
    """The lines of the ``return`` statements of the top-level function ``function`` in
    ``code``; None when no such plain function is defined once (or it is a generator)."""
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
    return sorted(n.lineno for n in nodes if isinstance(n, ast.Return))


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
