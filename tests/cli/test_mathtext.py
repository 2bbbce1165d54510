"""Statements' LaTeX as a terminal shows it (``cjudge.cli.mathtext``, pylatexenc)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cjudge.cli.mathtext import math_to_text, render_math

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("latex, text", [
    (r"(r+1) \bmod n", "(r+1) mod n"),
    (r"2\,\frac{n-1}{n}\,S", "2 (n-1)/n S"),
    (r"c = \lceil N/n \rceil", "c = ⌈N/n⌉"),
    (r"T \le (n-1)\left(\alpha + \frac{S}{\beta}\right)", "T ≤ (n-1)(α+ S/β)"),
    (r"N \ge n", "N ≥ n"),
])
def test_formulas_read_as_text(latex, text):
    assert math_to_text(latex) == text


def test_code_is_left_alone_and_markdown_emphasis_escaped():
    md = r"send \(x_i\) with `dist.send(t, \(r\))` then \[ a \cdot b \]"
    assert render_math(md, for_markdown=False) == r"send x_i with `dist.send(t, \(r\))` then a · b"
    assert render_math(md).startswith(r"send x\_i with")


@pytest.mark.parametrize("statement", sorted(ROOT.glob("exercises/*/statement*.md")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_statement_shows_raw_latex(statement):
    text = render_math(statement.read_text(encoding="utf-8"), for_markdown=False)
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S)
    assert not re.findall(r"\\[a-zA-Z]+|\\[()[\]]", prose)
