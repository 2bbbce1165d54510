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
from collections.abc import Callable, Mapping
from typing import cast

from ..contract.units import format_seconds
from .topology import ModelError

NAMES = ("n", "S", "alpha", "beta", "alpha_inter", "beta_inter", "g")
_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow,
    ast.Mod: operator.mod}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "log2": math.log2, "ceil": math.ceil, "floor": math.floor, "min": min, "max": max}
#: names with a unit: seconds (α, c), bytes (S) and bytes per second (β); the rest are counts
_UNITS = ("S", "alpha", "beta", "alpha_inter", "beta_inter", "c")


class Bound:
    """A parsed bound: ``Bound("2*(n-1)*alpha + 2*(n-1)/n*S/beta")(n=8, S=1e6, ...)``."""

    def __init__(self, formula: object, names: tuple[str, ...] = NAMES) -> None:
        if not isinstance(formula, str) or len(formula) > 500:
            raise ModelError("a time bound is a formula string of at most 500 characters")
        self.formula, self.names = formula, names
        try:
            self._tree = ast.parse(formula, mode="eval").body
        except SyntaxError as exc:
            raise ModelError(f"time bound {formula!r} is not a formula: {exc.msg}") from None
        self._check(self._tree)
        self._value = _compiled(self._tree)

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
            return float(self._value(values))
        except (ArithmeticError, ValueError, KeyError) as exc:
            raise ModelError(f"time bound {self.formula!r} cannot be evaluated: {exc}") from None

    def steps(self, **values: float) -> float:
        """How many α the bound pays for these values (bytes and compute cost nothing)."""
        return self(**{**values, "S": 0.0, "c": 0.0, "alpha": 1.0, "alpha_inter": 1.0})

    def shown(self, **values: float) -> str:
        """The bound with its numbers, for a learner: ``2 × (5 µs + 9.1 ns) = 10 µs``.

        Counts (of n, g, case parameters) are evaluated; α and c show as times, a product with
        bytes (S/β) as the time it takes, each multiplied by its count."""
        try:
            return f"{self._show(self._tree, values)} = {format_seconds(self(**values))}"
        except (ArithmeticError, ValueError, KeyError):
            return format_seconds(self(**values))

    def _show(self, node: ast.AST, values: dict[str, float]) -> str:
        if not _has_unit(node):
            return _count(self._eval(node, values))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
            right = self._show(node.right, values)
            if isinstance(node.op, ast.Sub) and _is_sum(node.right):
                right = f"({right})"
            return f"{self._show(node.left, values)} {'+' if isinstance(node.op, ast.Add) else '−'} {right}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("min", "max"):
            return f"{node.func.id}({', '.join(self._show(a, values) for a in node.args)})"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div):
            factors = _factors(node, False)
            count = 1.0
            unit: list[tuple[ast.AST, bool]] = []
            for factor, inverted in factors:
                if _has_unit(factor):
                    unit.append((factor, inverted))
                else:
                    value = self._eval(factor, values)
                    count = count / value if inverted else count * value
            if len(unit) == 1 and not unit[0][1] and not isinstance(unit[0][0], ast.Name):
                body = self._show(unit[0][0], values)
                body = f"({body})" if _is_sum(unit[0][0]) else body
            else:
                seconds = 1.0
                for factor, inverted in unit:
                    value = self._eval(factor, values)
                    seconds = seconds / value if inverted else seconds * value
                if count < 1:  # S/M/β: one time, not a fraction of another
                    seconds, count = seconds * count, 1.0
                body = format_seconds(seconds)
            return body if math.isclose(count, 1.0) else f"{_count(count)} × {body}"
        return format_seconds(self._eval(node, values))

    def _eval(self, node: ast.AST, values: dict[str, float]) -> float:
        """A part of the formula, for these values (what :meth:`shown` prints)."""
        return _compiled(node)(values)


#: a checked formula, or a part of one, as a function of the names' values
_Compiled = Callable[[Mapping[str, float]], float]


def _compiled(node: ast.AST) -> _Compiled:
    """A checked formula's tree as nested closures: made once, then evaluated at every size
    without walking the tree again."""
    if isinstance(node, ast.Constant):
        value = node.value
        assert isinstance(value, int | float)  # _check admits numbers only
        return lambda values: value
    if isinstance(node, ast.Name):
        name = node.id
        return lambda values: values[name]
    if isinstance(node, ast.BinOp):
        left, right, op = _compiled(node.left), _compiled(node.right), _BINARY[type(node.op)]
        if isinstance(node.op, ast.Pow):
            return lambda values: _power(left(values), right(values))
        return lambda values: op(left(values), right(values))
    if isinstance(node, ast.UnaryOp):
        operand = _compiled(node.operand)
        return (lambda values: -operand(values)) if isinstance(node.op, ast.USub) else operand
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    function, args = _FUNCTIONS[node.func.id], [_compiled(a) for a in node.args]
    return lambda values: function(*(a(values) for a in args))


def _power(base: float, exponent: float) -> float:
    """``base ** exponent``, refused for an exponent over 64 (a formula may not run for long)."""
    if abs(exponent) > 64:
        raise ValueError("exponent too large")
    return cast(float, base ** exponent)


def _has_unit(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in _UNITS for n in ast.walk(node))


def _is_sum(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub)


def _factors(node: ast.AST, inverted: bool) -> list[tuple[ast.AST, bool]]:
    """A product's factors, each with whether it divides."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left, inverted) + _factors(node.right, inverted)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _factors(node.left, inverted) + _factors(node.right, not inverted)
    return [(node, inverted)]


def _count(value: float) -> str:
    """A count as a learner reads it: ``6``, ``1.5``, ``0.667``."""
    return str(round(value)) if math.isclose(value, round(value), abs_tol=1e-9) else f"{value:.3g}"
