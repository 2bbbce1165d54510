"""No message calls a symmetric-memory load or store a send: every corpus file of an exercise
that moves data only by loads and stores (``allowed = []`` with symmetric memory) is judged,
and its messages, English and Chinese, never say "send"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .corpus import FILES
from .test_mistakes import failing_case

SYMM = [p for p in FILES if p.parent.name == "oneshot_twoshot"]


def test_the_corpus_has_files_that_load():
    assert len(SYMM) >= 3


@pytest.mark.parametrize("path", SYMM, ids=[p.stem for p in SYMM])
def test_a_load_is_never_called_a_send(path: Path):
    _, case = failing_case(path)
    smallest = case.get("smallest", {}).get("message", "")
    for text in (case["message"], smallest):
        assert not re.search(r"\bsen(d|ds|t|ding)\b", text), text
    assert "发送" not in case["message_zh"], case["message_zh"]
