"""Every judge-written message has its Chinese: run every exercise's known-wrong files and the
mistake corpus on the simulated runtime and find no English phrase in ``message_zh`` beyond code
(identifiers, code spans, the learner's source) and the text of an error Python or a tensor
operation raised in the learner's code. An error raised at a torch.distributed call is the
judge's to translate (the simulated runtime raises it in torch's words)."""

from __future__ import annotations

import re

import pytest

from cjudge.exercise.exercises import default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.grading.torch_zh import in_chinese
from cjudge.model.topology import load_topologies
from cjudge.sim.runtime import run_case
from tests.mistakes.corpus import FILES, exercise_of

EXERCISES = load_exercises(default_root())
WRONG = [(ex.id, w.path) for ex in EXERCISES.values() for w in ex.wrong] + [
    (exercise_of(path).id, path) for path in FILES]
#: a learner's line that calls torch.distributed (whose errors the judge translates)
CALLS_DIST = re.compile(r"\b(dist|distributed|group|pg)\.\w+\(|\bbatch_isend_irecv\(")
#: three English words in a row, each only letters (identifiers have _ or digits, and are code)
PHRASE = re.compile(r"(?<![\w.`])[A-Za-z]+(?: [A-Za-z]+){2,}(?![\w`])")


def english_left(message_zh: str, details: list[str]) -> list[str]:
    """The English phrases of ``message_zh`` once code and exception text are taken out."""
    text = message_zh.split("\n", 1)[0]  # below: the learner's source line and a caret
    for traceback in details:  # the exception's own text, unless a torch.distributed call's
        lines = traceback.strip().splitlines() or [""]
        raised_at = lines[-2] if len(lines) > 1 else ""
        if ": " in lines[-1] and not CALLS_DIST.search(raised_at):
            text = text.replace(lines[-1].split(": ", 1)[1], "")
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"列：.*", "", text)  # a compile error's own message
    return PHRASE.findall(text)


def test_the_check_finds_an_english_hint():
    assert english_left("rank 0 第 3 行 抛出 RuntimeError：the receiving tensor is too small",
                        []) == ["the receiving tensor is too small"]
    assert english_left("rank 0 第 3 行 抛出 NameError：name 'x' is not defined",
                        ["Traceback …\nNameError: name 'x' is not defined"]) == []
    split = "Split sizes doesn't match total dim 0 size"  # torch.distributed's: the judge's
    assert english_left(f"rank 0 第 25 行 抛出 RuntimeError：{split}", [
        f"Traceback …\n    dist.all_to_all_single(out, t, a, b)\nRuntimeError: {split}"])
    assert english_left("调用了本题禁止的 all_reduce（只允许：send、recv、batch_isend_irecv）", []) == []


@pytest.mark.parametrize(("exercise_id", "path"), WRONG, ids=[f"{e}/{p.name}" for e, p in WRONG])
def test_no_chinese_message_carries_an_english_hint(exercise_id, path):
    out = judge_code(EXERCISES[exercise_id], path.read_text(encoding="utf-8"), path.name,
                     run_case, "sim")
    failing = next((c for c in out["cases"] if c["verdict"] != "accepted"), {})
    assert english_left(out["message_zh"], failing.get("details", [])) == [], out["message_zh"]


@pytest.mark.parametrize("topology", sorted(load_topologies()))
def test_every_topology_is_described_in_chinese(topology):
    """The machine a too_slow message names, in one node and across several."""
    topo = load_topologies()[topology]
    for world_size in {2, topo.gpus_per_node + 1 if "inter" in topo.links else 2}:
        en, zh = topo.described(world_size)
        assert english_left(zh, []) == [], zh
        assert english_left(en, []), en  # the check sees English where there is some


def test_a_too_slow_path_names_calls_as_the_learner_writes_them():
    """symm.barrier, not the switch's symm_barrier."""
    ex = EXERCISES["oneshot-twoshot"]
    path = next(w.path for w in ex.wrong if w.path.name == "two_shot.py")
    out = judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case, "sim")
    assert out["verdict"] == "too_slow"
    for message in (out["message"], out["message_zh"]):
        assert "symm.barrier" in message.split("关键路径")[-1].split("critical path")[-1], message
        assert "symm_barrier" not in message, message


@pytest.mark.parametrize("message", [
    "Invalid src rank -1: the group holds ranks [0, 1, 2, 3]",
    "Invalid destination rank: destination rank should not be the same as the rank of the "
    "current process.",
    "Split sizes doesn't match total dim 0 size",
    "Invalid rank 4: the group holds 4 ranks (global ranks [0, 1, 2, 3])",  # the real runtime's
    "broadcast: rank 0 sent 3 elements into a tensor of 4",
    "ProcessGroupGloo::allgather: tensor_list must hold one tensor per rank of the group",
    "Invalid function argument. Expected parameter `tensor` of type torch.Tensor but got list "
    "instead.",
])
def test_torch_distributed_errors_have_their_chinese(message):
    zh = in_chinese(message)
    assert zh is not None and english_left(zh, []) == [], zh
    assert in_chinese("name 'x' is not defined") is None  # Python's own words stay
