r"""Statements on a terminal: their LaTeX math (``\(…\)``, ``\[…\]``) as readable Unicode text.

pylatexenc's ``LatexNodes2Text`` (a maintained LaTeX parser) does the conversion: ``\alpha`` is
α, ``\lceil x \rceil`` is ⌈x⌉. Two macros get forms a terminal reads better than pylatexenc's
defaults: ``\bmod`` is ``mod`` (dropped otherwise) and ``\frac{a}{b}`` is ``a/b`` with each side
parenthesised when it is more than one term (``(n-1)/n``, not ``n-1/n``). Code spans and blocks
are left as they are.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
#: one term: needs no parentheses around it in ``a/b``
TERM = re.compile(r"[\w.]+|\(.*\)")
#: what Markdown would read as emphasis in the converted text
MARKDOWN_SPECIAL = re.compile(r"([*_])")


def _frac(node: Any, l2tobj: Any) -> str:  # pylatexenc's nodes (untyped)
    """``\frac{a}{b}`` as ``a/b``, parenthesising a side that is more than one term."""
    sides = [l2tobj.nodelist_to_text([arg]).strip() for arg in node.nodeargd.argnlist[-2:]]
    return "/".join(s if TERM.fullmatch(s) else f"({s})" for s in sides)


@cache
def _converter() -> LatexNodes2Text:
    db = get_default_latex_context_db()
    db.add_context_category("cjudge", prepend=True, macros=[
        MacroTextSpec("bmod", " mod "), MacroTextSpec("frac", _frac)])
    return LatexNodes2Text(latex_context=db, math_mode="text")


def math_to_text(latex: str) -> str:
    r"""One formula as text, e.g. ``(r+1) \bmod n`` → ``(r+1) mod n``."""
    text = re.sub(r"\s+", " ", _converter().latex_to_text(latex)).strip()
    text = re.sub(r"([≤≥≈≠·×→])(?=\S)", r"\1 ", text)  # LaTeX eats the space after a macro
    return re.sub(r" ([)\]⌉⌋])", r"\1", text)


def render_math(markdown: str, for_markdown: bool = True) -> str:
    """``markdown`` with every formula outside code replaced by its text; ``for_markdown``
    escapes what Markdown would read as emphasis (for a renderer, not for plain output)."""
    def formula(match: re.Match[str]) -> str:
        text = math_to_text(match.group(1) or match.group(2))
        return MARKDOWN_SPECIAL.sub(r"\\\1", text) if for_markdown else text

    out, last = [], 0
    for code in CODE.finditer(markdown):
        out += [MATH.sub(formula, markdown[last:code.start()]), code.group(0)]
        last = code.end()
    return "".join([*out, MATH.sub(formula, markdown[last:])])
