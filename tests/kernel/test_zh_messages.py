"""Every judge-written message has its Chinese: run every exercise's known-wrong files on the
simulated runtime and find no English phrase in ``message_zh`` beyond code (identifiers, code
spans, the learner's source) and the text of an exception the learner's code raised."""

from __future__ import annotations

import re

import pytest

from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code
from cjudge.sim.runtime import run_case

EXERCISES = load_exercises(default_root())
WRONG = [(ex.id, w.path) for ex in EXERCISES.values() for w in ex.wrong]
#: three English words in a row, each only letters (identifiers have _ or digits, and are code)
PHRASE = re.compile(r"(?<![\w.`])[A-Za-z]+(?: [A-Za-z]+){2,}(?![\w`])")


def english_left(message_zh: str, details: list[str]) -> list[str]:
    """The English phrases of ``message_zh`` once code and exception text are taken out."""
    text = message_zh.split("\n", 1)[0]  # below: the learner's source line and a caret
    for traceback in details:  # the exception's own text (torch's or Python's words)
        last = traceback.strip().splitlines()[-1] if traceback.strip() else ""
        if ": " in last:
            text = text.replace(last.split(": ", 1)[1], "")
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"列：.*", "", text)  # a compile error's own message
    return PHRASE.findall(text)


def test_the_check_finds_an_english_hint():
    assert english_left("rank 0 第 3 行 抛出 RuntimeError：the receiving tensor is too small",
                        []) == ["the receiving tensor is too small"]
    assert english_left("rank 0 第 3 行 抛出 NameError：name 'x' is not defined",
                        ["Traceback …\nNameError: name 'x' is not defined"]) == []
    assert english_left("调用了本题禁止的 all_reduce（只允许：send、recv、batch_isend_irecv）", []) == []


@pytest.mark.parametrize(("exercise_id", "path"), WRONG, ids=[f"{e}/{p.name}" for e, p in WRONG])
def test_no_chinese_message_carries_an_english_hint(exercise_id, path):
    out = judge_code(EXERCISES[exercise_id], path.read_text(encoding="utf-8"), path.name,
                     run_case, "sim")
    failing = next((c for c in out["cases"] if c["verdict"] != "accepted"), {})
    assert english_left(out["message_zh"], failing.get("details", [])) == [], out["message_zh"]
