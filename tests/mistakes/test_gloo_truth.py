"""The corpus's ground truth: each file does on real torch + gloo what its ``# gloo:`` line
records (or what a ``# racy:`` line records), and the judge's real runtime (ranks in processes,
the switch) gives it the declared verdict on that case. Slow: every file forks its ranks twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from cjudge.grading.submission import judge_code
from cjudge.real.runtime import run_case

from .corpus import FILES, case_named, exercise_of, gloo_outcomes, gloo_record, header, on_gloo


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_gloo_does_what_is_recorded(path: Path) -> None:
    ex, code = exercise_of(path), path.read_text(encoding="utf-8")
    case = case_named(ex, gloo_record(path)[1])
    assert on_gloo(ex, code, path.name, case) in gloo_outcomes(path)
    result = judge_code(ex, code, path.name, run_case, "torch-gloo", cases=[case])
    assert result["cases"][0]["verdict"] == header(code, "expect")[0]
