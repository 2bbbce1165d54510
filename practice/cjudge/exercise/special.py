"""erf and tanh computed the same on every platform: in decimal arithmetic, not the C library's
(glibc's and Pyodide's musl differ in the last bits, and the browser must judge as CPython does).
The simulated torch's gelu and the graders' expected values both use them."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

#: π to 50 digits
_PI = Decimal("3.14159265358979323846264338327950288419716939937511")


def erf(x: float) -> float:
    """erf(x), correctly rounded but for the rarest of ties: 2/√π·e^(−x²)·Σ 2ⁿx^(2n+1)/(2n+1)!!,
    a series of positive terms, in 50 digits."""
    if x != x or x == 0:
        return x
    if abs(x) >= 6:  # erf(6) rounds to 1
        return math.copysign(1.0, x)
    with localcontext() as ctx:
        ctx.prec = 50
        d = Decimal(x)
        twice_square = 2 * d * d
        term = total = d
        n = 0
        while abs(term) > abs(total) * Decimal("1e-45"):
            n += 1
            term = term * twice_square / (2 * n + 1)
            total += term
        return float(2 * total * (-d * d).exp() / _PI.sqrt())


def tanh(x: float) -> float:
    """tanh(x) = (e^(2x) − 1)/(e^(2x) + 1), in 50 digits."""
    if x != x or abs(x) < 1e-9:  # tanh(x) rounds to x
        return x
    if abs(x) >= 20:  # tanh(20) rounds to 1
        return math.copysign(1.0, x)
    with localcontext() as ctx:
        ctx.prec = 50
        e = (2 * Decimal(x)).exp()
        return float((e - 1) / (e + 1))
