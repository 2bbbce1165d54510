"""``repr`` of a simulated tensor, close to torch's: ``tensor([1., 2.])``, 4 decimals, summaries."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .tensor import Tensor

_SUMMARY_THRESHOLD = 1000
_EDGE = 3


def _float_formatter(values: list[float]) -> Any:
    finite = [abs(v) for v in values if math.isfinite(v)]
    if finite and all(v == int(v) for v in finite) and max(finite) < 1e8:
        return lambda v: f"{v:.0f}." if math.isfinite(v) else str(v)
    nonzero = [v for v in finite if v != 0]
    if nonzero and (max(nonzero) >= 1e8 or min(nonzero) < 1e-4 or max(nonzero) / min(nonzero) > 1000):
        return lambda v: f"{v:.4e}" if math.isfinite(v) else str(v)
    return lambda v: f"{v:.4f}" if math.isfinite(v) else str(v)


def _shown(t: Tensor, summarize: bool) -> list[Any]:
    """The nested lists to print, with ``...`` marking summarised runs."""
    if t.dim() == 0:
        return cast(list[Any], t.tolist())
    size = t.shape[0]
    if summarize and size > 2 * _EDGE:
        rows = [t[i] for i in range(_EDGE)] + [None] + [t[i] for i in range(size - _EDGE, size)]
    else:
        rows = [t[i] for i in range(size)]
    if t.dim() == 1:
        return [Ellipsis if r is None else r.item() for r in rows]
    return [Ellipsis if r is None else _shown(r, summarize) for r in rows]


def _bool_text(v: Any) -> str:
    return str(bool(v))


def _flat(nested: Any) -> list[Any]:
    if isinstance(nested, list):
        return [x for item in nested for x in _flat(item)]
    return [nested]


def tensor_repr(t: Tensor) -> str:
    """``tensor(...)`` as torch prints it, with the dtype when it is not a default one."""
    shown = _shown(t, t.numel() > _SUMMARY_THRESHOLD)
    values = [v for v in _flat(shown) if v is not Ellipsis]
    fmt: Callable[[Any], str]
    if t.dtype.name == "bool":
        fmt = _bool_text
    elif t.dtype.is_floating_point:
        fmt = _float_formatter(values)
    else:
        fmt = str
    width = max((len(fmt(v)) for v in values), default=0)

    def render(node: list[Any], depth: int) -> str:
        if depth == t.dim() - 1:
            return "[" + ", ".join("..." if v is Ellipsis else fmt(v).rjust(width) for v in node) + "]"
        sep = "," + "\n" * (t.dim() - 1 - depth) + " " * (8 + depth)
        return "[" + sep.join("..." if n is Ellipsis else render(n, depth + 1) for n in node) + "]"

    body = fmt(shown) if t.dim() == 0 else render(shown, 0)
    suffix = ""
    if t.dtype.name not in ("float32", "int64", "bool"):
        suffix = f", dtype=torch.{t.dtype.name}"
    if t.numel() == 0:
        body = "[]"
        if t.dim() > 1:
            suffix = f", size={tuple(t.shape)}" + suffix
    return f"tensor({body}{suffix})"
