"""No unannounced rule: every exercise's published statement, in both languages, states every
rule its ``exercise.toml`` and grader declare (DESIGN, "Rules a learner is told")."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from cjudge.contract.units import format_seconds, format_size
from cjudge.exercise.exercises import default_root, load_exercises

EXERCISES = load_exercises(default_root())
CATALOG = Path(__file__).resolve().parents[2] / "web" / "scripts" / "catalog.py"


def published(exercise_id: str, lang: str) -> str:
    """The statement as the web app publishes it (``web/scripts/catalog.py``; the server and
    the CLI read the same ``Exercise.statement``)."""
    spec = importlib.util.spec_from_file_location("catalog", CATALOG)
    assert spec and spec.loader
    catalog = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalog)
    return catalog.entry(EXERCISES[exercise_id])["statement"][lang]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_statement_states_every_rule(exercise_id, lang):
    ex = EXERCISES[exercise_id]
    text = published(exercise_id, lang)
    assert text.startswith(ex.statement(lang).split("\n", 1)[0])  # the author's text first
    rules = text.split("## 规则" if lang == "zh" else "## Rules", 1)[1]
    for name in ex.allowed:
        assert f"`dist.{name}`" in rules
    colon = "）：" if lang == "zh" else "): "
    for case in ex.cases:
        bound = ex.grader.bytes_bound(case.params, case.world_size)
        shown = ", ".join(map(str, bound)) if isinstance(bound, list | tuple) else str(bound)
        assert f"`{case.name}`" in rules and f"{case.world_size}{colon}{shown}" in rules
        if ex.messages is not None:
            assert f"`{ex.messages.bound.formula}`" in rules
            assert f"`{case.name}`{'（' if lang == 'zh' else ' ('}n = {case.world_size}{colon}" \
                f"{ex.messages(case.world_size, case.params)}" in rules
    spec = ex.model
    if spec.time_bound is not None:
        assert f"`{spec.time_bound.formula}`" in rules and f"{100 * spec.tolerance:g} %" in rules
        judged = [c for c in ex.cases if spec.judges(c.name)]
        headline = max(judged, key=lambda c: c.world_size)
        size = max(spec.sizes)
        topo = spec.topology_for(headline.world_size, headline.params)
        seconds = spec.time_bound(**spec.variables(headline.world_size, size, topo,
                                                   headline.params))
        assert f"= {format_seconds(seconds)}" in rules and format_size(size) in rules
        for name in spec.cases or ():
            assert f"`{name}`" in rules
    else:
        assert "too_slow" not in rules
    if spec.floor is not None and spec.floor.time.formula != "0":
        assert f"`{spec.floor.time.formula}`" in rules
    assert f"{ex.time_limit_s:g}" in rules and str(ex.output_limit_bytes) in rules
    assert "1e-5" in rules and "1e-9" in rules
    charge = {"case-dtype": ("count at the case's dtype", "按用例的 dtype 计"),
              "as-sent": ("count as sent", "按实际发送的字节计")}[ex.payload_bytes]
    assert charge[lang == "zh"] in rules


def test_ring_allreduce_says_it_keeps_its_time_bound():
    """The chapter's contract is bytes; the exercise keeps the ring's time bound too, and its
    own text says so (a ring of blocking calls in turn is too_slow) in both languages."""
    en, zh = published("ring-allreduce", "en"), published("ring-allreduce", "zh")
    assert "This exercise keeps a time bound as well as its byte bound" in en
    assert "a ring of blocking calls taken in turn" in en and "`too_slow`" in en.split("## Rules")[0]
    assert "本题除了字节上限，还保留时间上限" in zh and "用阻塞调用轮流收发的环" in zh
