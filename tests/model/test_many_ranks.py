"""The ring all-reduce reference at 32 and 64 ranks, in a scratch copy of the exercise: accepted
on the sim and on real gloo ranks, modelled where ``[model]`` lists the case (on 8 nodes × 8),
said not to be where it does not."""

from __future__ import annotations

import shutil
from pathlib import Path

from cjudge.exercise.exercises import default_root, load_exercise
from cjudge.grading.facts import CaseFacts
from cjudge.grading.grade import grade_case, plan_cases
from cjudge.grading.submission import judge_code
from cjudge.real.runtime import run_case as run_real_case
from cjudge.sim.runtime import run_case

#: 32 and 64 ranks, N such that t.chunk(n) makes n chunks ((n − 1)·⌈N/n⌉ < N)
BIG_CASES = '''
[[cases]]
name = "32-ranks"
world_size = 32
numel = 1088
dtype = "float32"

[[cases]]
name = "64-ranks"
world_size = 64
numel = 4224
dtype = "float32"
'''


def scratch(tmp_path: Path, model: dict[str, str] | None = None) -> Path:
    """ring-allreduce copied into ``tmp_path`` with the big cases, a time limit for 64 ranks on a
    loaded machine and its ``exercise.toml``'s lines edited as ``model`` says (old: new)."""
    folder = tmp_path / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", folder)
    toml = folder / "exercise.toml"
    text = toml.read_text(encoding="utf-8").replace("time_limit_s = 5.0", "time_limit_s = 120.0")
    for old, new in (model or {}).items():
        assert old in text
        text = text.replace(old, new)
    head, tail = text.split("[model]\n")
    toml.write_text(head + BIG_CASES + "\n[model]\n" + tail, encoding="utf-8")
    return folder


def judged(folder: Path) -> dict[str, dict]:
    ex = load_exercise(folder)
    result = judge_code(ex, ex.solution, "solution.py", run_case, "sim", all_cases=True)
    return {c["name"]: c for c in result["cases"]}


def test_unlisted_big_cases_are_accepted_and_not_modelled(tmp_path):
    cases = judged(scratch(tmp_path))
    for name, n in (("32-ranks", 32), ("64-ranks", 64)):
        case = cases[name]
        assert case["verdict"] == "accepted", case["message"]
        assert case["world_size"] == n and case["model"]["modelled"] is False
        assert "not modelled" in case["model"]["note"]["en"]
        labelled = [m for m in case["timeline"]["messages"] if "holds" in m]
        assert len(labelled) > 1000  # those whose values the switch kept (its 64 Ki budget)
        for m in labelled:  # the ring's windows: ranks src - k + 1 .. src, or everyone
            k, src = len(m["holds"]), m["src"]
            assert m["holds"] == sorted((src - j) % n for j in range(k)), m
            assert k == n or m["chunk"] == (src - k + 1) % n, m
        first = [m for m in labelled if m["step"] == 1]
        assert sorted((m["chunk"], m["holds"]) for m in first) == [(r, [r]) for r in range(n)]

def test_a_listed_64_rank_case_is_modelled_on_8_nodes(tmp_path):
    model = {'topology = "h100x8"': 'topology = "h100x8x8"',  # one NIC between nodes:
             "2*(n-1)/n*S/beta\"": "2*(n-1)/n*S/beta_inter\"",  # the ring's β there
             'cases = ["sample-4-ranks"': 'cases = ["64-ranks", "sample-4-ranks"'}
    case = judged(scratch(tmp_path, model))["64-ranks"]
    assert case["verdict"] == "accepted", case["message"]
    rows = case["model"]["sizes"]
    assert [r["size"] for r in rows] == [4096, 10**6, 10**9] and all(r["complete"] for r in rows)
    assert case["model"]["topology"]["name"] == "h100x8x8"
    assert all(not r["over"] for r in rows)


def test_the_real_runtime_accepts_32_and_64_ranks(tmp_path):
    """The same reference on real gloo ranks (64 processes: about 12 s on 2 busy cores)."""
    ex = load_exercise(scratch(tmp_path))
    for spec in [s for s in plan_cases(ex) if s["world_size"] in (32, 64)]:
        raw = run_real_case(ex.job_spec(ex.solution, "solution.py"), spec)
        case = grade_case(CaseFacts.of(ex, spec, raw))
        assert case["verdict"] == "accepted", case["message"]
