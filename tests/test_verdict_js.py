"""web/src/app/verdict.js is generated from the kernel's verdict JSON by
``scripts/verdict_js.py``: the committed file is what the script writes today, and what it writes
follows the TypedDicts (a field, its optionality, its comment) and the verdict codes."""

from __future__ import annotations

from pathlib import Path

from cjudge.contract.verdicts import Verdict
from tests.script_loader import load_script

REPO = Path(__file__).resolve().parents[1]


def test_the_committed_file_is_the_scripts_output() -> None:
    script = load_script("verdict_js")
    assert script.PAGE.read_text(encoding="utf-8") == script.render(), (
        "web/src/app/verdict.js is stale: run `python scripts/verdict_js.py`")


def test_it_names_every_verdict_code_and_types_the_verdict_with_them() -> None:
    text = load_script("verdict_js").render()
    codes = "|".join(f'"{v.value}"' for v in Verdict)
    assert f" * @typedef {{{codes}}} Verdict\n" in text
    assert text.count(" * @property {Verdict} verdict") == 2  # VerdictJSON's and CaseResult's


def test_fields_keep_their_optionality_types_and_comments() -> None:
    text = load_script("verdict_js").render()
    assert " * @property {CaseResult[]} cases\n" in text
    assert " * @property {number[]} [bytes_bounds] per rank, when the ranks' bounds differ\n" in text
    assert " * @property {CaseResult} [smallest] the smallest case" in text
    assert " * @property {number|null} peer the other rank for p2p" in text
    assert ' * @typedef {"nan"|"inf"|"-inf"} NonFinite\n' in text
    assert text.index("@typedef {object} VerdictJSON") < text.index("@typedef {object} CaseResult")
