"""A verdict that holds NaN and infinities prints them as nan, inf and -inf, in rich tables and
in plain lines."""

from __future__ import annotations

import io
import math

import pytest
from rich.console import Console

from cjudge.cli.render import show_case, show_result

CASE = {"name": "odd", "world_size": 2, "verdict": "wrong_answer", "message": "got nan",
        "message_zh": "实际为 nan", "details": [], "bytes_sent": [8, 8], "bytes_bound": 8,
        "messages_sent": [1, 1], "wall_ms": 3.0,
        "memory": {"peak": math.inf, "bound": 2, "what": "layers", "what_zh": "层"},
        "model": {"sizes": [{"size": 1 << 20, "time_s": math.nan, "bound_s": math.inf}]},
        "smallest": {"message": "smaller", "message_zh": "更小",
                     "sample": {"inputs": [{"shape": [1], "dtype": "float64", "data": [1.0]}],
                                "outputs": [{"shape": [1], "dtype": "float64",
                                             "data": [-math.inf]}],
                                "expected": [{"shape": [1], "dtype": "float64",
                                              "data": [1.0]}]}}}
RESULT = {"exercise": "x", "verdict": "wrong_answer", "message": "got nan",
          "message_zh": "实际为 nan", "runtime": "torch", "cases": [CASE], "stdout": ""}


@pytest.mark.parametrize("terminal", [True, False])
def test_nan_and_infinities_print_as_nan_inf_and_minus_inf(terminal: bool) -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=terminal, color_system=None)
    if not terminal:  # piped, each case is a line as it is graded; a terminal draws a table
        show_case(console, CASE, "en")
    show_result(console, RESULT, "en")
    text = out.getvalue()
    assert "1 MiB nan (bound inf)" in text
    assert "memory inf/2 layers" in text
    assert "→ [-inf], expected [1]" in text
