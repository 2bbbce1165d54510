"""An exercise's time bound: a formula of n, S, α, β read without running any code.

The formula is parsed with :mod:`ast` and only arithmetic is evaluated: numbers, the names
``n`` (ranks), ``S`` (bytes), ``alpha``/``beta`` (the intra-node link, s and B/s),
``alpha_inter``/``beta_inter`` (between nodes), ``g`` (GPUs per node), ``+ - * / // ** %``, and
the functions ``log2``, ``ceil``, ``floor``, ``min``, ``max``. Anything else is refused, except
the further names an exercise declares (``c``, the compute time per call; case parameters).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from .topology import ModelError

NAMES = ("n", "S", "alpha", "beta", "alpha_inter", "beta_inter", "g")
_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow,
    ast.Mod: operator.mod}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "log2": math.log2, "ceil": math.ceil, "floor": math.floor, "min": min, "max": max}


class Bound:
    """A parsed bound: ``Bound("2*(n-1)*alpha + 2*(n-1)/n*S/beta")(n=8, S=1e6, ...)``."""

    def __init__(self, formula: str, names: tuple[str, ...] = NAMES) -> None:
        if not isinstance(formula, str) or len(formula) > 500:
            raise ModelError("a time bound is a formula string of at most 500 characters")
        self.formula, self.names = formula, names
        try:
            self._tree = ast.parse(formula, mode="eval").body
        except SyntaxError as exc:
            raise ModelError(f"time bound {formula!r} is not a formula: {exc.msg}") from None
        self._check(self._tree)

    def _check(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise ModelError(f"time bound {self.formula!r}: only numbers, not {node.value!r}")
        elif isinstance(node, ast.Name):
            if node.id not in self.names:
                raise ModelError(f"time bound {self.formula!r}: unknown name {node.id!r} "
                                 f"(known: {', '.join(self.names)})")
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self._check(node.left)
            self._check(node.right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            self._check(node.operand)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _FUNCTIONS and not node.keywords and node.args):
            for arg in node.args:
                self._check(arg)
        else:
            raise ModelError(f"time bound {self.formula!r}: only arithmetic on "
                             f"{', '.join(self.names)} and {', '.join(_FUNCTIONS)}()")

    def __call__(self, **values: float) -> float:
        """Seconds, for these values of the names."""
        try:
            return float(self._eval(self._tree, values))
        except (ArithmeticError, ValueError, KeyError) as exc:
            raise ModelError(f"time bound {self.formula!r} cannot be evaluated: {exc}") from None

    def _eval(self, node: ast.AST, values: dict[str, float]) -> float:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, int | float)  # _check admits numbers only
            return node.value
        if isinstance(node, ast.Name):
            return values[node.id]
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, values), self._eval(node.right, values)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise ValueError("exponent too large")
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand, values)
            return -value if isinstance(node.op, ast.USub) else value
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(self._eval(a, values) for a in node.args))
