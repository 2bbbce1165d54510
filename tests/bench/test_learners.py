"""``bench ID [FILE]``: a learner's implementation beside the built-in it replaces."""

from pathlib import Path

import pytest

from cjudge.exercise.exercises import default_root

from .helpers import QUICK, run_bench

#: the chapter's ring_allreduce.py, torchrun-style: it joins, tests, prints and leaves by itself
CHAPTER_RING = (default_root() / "ring-allreduce" / "solution.py").read_text().replace(
    "import torch.distributed as dist\n", "import torch.distributed as dist\n\n"
    "dist.init_process_group('gloo')\nprint('module-level output is dropped')\n", 1
) + "\n\ndist.destroy_process_group()\n"

WRONG_RING = '''
import torch
import torch.distributed as dist


def ring_all_reduce(t):
    """Forgets the all-gather phase: each rank holds only its own chunk of the sum."""
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        buf = torch.empty_like(chunks[recv_idx])
        reqs = [dist.isend(chunks[send_idx].contiguous(), (rank + 1) % n),
                dist.irecv(buf, (rank - 1) % n)]
        for req in reqs:
            req.wait()
        chunks[recv_idx] += buf
'''

WRONG_TRANSPOSE = '''
import torch
import torch.distributed as dist


def transpose(row):
    """Forgets the final transpose: returns (n, k)."""
    n = dist.get_world_size()
    received = torch.empty_like(row)
    dist.all_to_all_single(received, row)
    return received.view(n, -1)
'''


def _write(tmp_path: Path, name: str, code: str) -> str:
    path = tmp_path / name
    path.write_text(code)
    return str(path)


def test_ring_reference_side_by_side(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "ring-allreduce", *QUICK)
    assert run.code == 0, run.stderr
    builtin, learner = run.doc["series"]
    assert (builtin["label"], builtin["kind"]) == ("all_reduce", "built-in")
    assert (learner["label"], learner["kind"]) == ("ring-allreduce", "learner")
    assert learner["busbw_factor"] == builtin["busbw_factor"] == 1.0
    assert all(r["wrong"] == 0 for s in run.doc["series"] for r in s["rows"])
    assert run.doc["config"]["learner"]["file"].endswith("exercises/ring-allreduce/solution.py")
    for ratio, b, mine in zip(run.doc["comparison"], builtin["rows"], learner["rows"], strict=True):
        assert ratio["size"] == b["size"] == mine["size"]
        assert ratio["ratio"] == pytest.approx(mine["busbw"] / b["busbw"])
        assert ratio["ratio_median"] == pytest.approx(mine["busbw_median"] / b["busbw_median"])
    after = run.stdout.split("# busbw ratio (learner / built-in) by size:\n")[1].splitlines()
    ratios = after[:len(run.doc["comparison"])]
    assert [line.split()[1:] for line in ratios] == [
        [str(c["size"]), f"{c['ratio'] * 100:.1f}%"] for c in run.doc["comparison"]]


def test_torchrun_style_file_runs_unchanged(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "ring-allreduce", _write(tmp_path, "ring.py", CHAPTER_RING), *QUICK)
    assert run.code == 0, run.stderr
    assert run.doc["wrong_total"] == 0
    assert "module-level output" not in run.stdout + run.stderr


def test_wrong_ring_is_counted(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "ring-allreduce", _write(tmp_path, "wrong.py", WRONG_RING), *QUICK)
    assert run.code == 1
    builtin, learner = run.doc["series"]
    assert all(r["wrong"] == 0 for r in builtin["rows"])
    # each rank keeps one of its two chunks unsummed: half of all elements are wrong
    assert [r["wrong"] for r in learner["rows"]] == [256, 512]
    assert "# Out of bounds values : 768 FAILED" in run.stdout


def test_transpose_reference_and_wrong(tmp_path: Path) -> None:
    ok = run_bench(tmp_path, "alltoall-transpose", *QUICK)
    assert ok.code == 0, ok.stderr
    assert [s["collective"] for s in ok.doc["series"]] == ["all_to_all", "all_to_all"]
    assert ok.doc["wrong_total"] == 0
    bad = run_bench(tmp_path, "alltoall-transpose",
                    _write(tmp_path, "t.py", WRONG_TRANSPOSE), *QUICK)
    assert bad.code == 1
    assert all(r["wrong"] > 0 for r in bad.doc["series"][1]["rows"])


@pytest.mark.parametrize(("exercise", "collective"), [
    ("all-gather", "all_gather"),  # returns its result
    ("tree-broadcast", "broadcast"),  # takes the root: bench's -r
    ("tree-reduce", "reduce"),  # checked on the root only
    ("allreduce-small", "all_reduce"),
    ("alltoall-p2p", "all_to_all"),
])
def test_any_exercise_with_a_built_in_is_timed_by_its_own_call(tmp_path: Path, exercise: str,
                                                                 collective: str) -> None:
    run = run_bench(tmp_path, exercise, *QUICK, "-r", "1")
    assert run.code == 0, run.stderr
    assert [s["collective"] for s in run.doc["series"]] == [collective, collective]
    assert run.doc["series"][1]["label"] == exercise and run.doc["wrong_total"] == 0


def test_an_exercise_bench_cannot_time_says_why_and_which_it_can(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "alpha-beta", *QUICK)
    assert run.code == 2
    assert "bench cannot time alpha-beta: its graded calls communicate nothing (exercise.toml " \
           "allows no primitive); it can time" in run.stderr
    can = run.stderr.split("it can time")[1]
    assert "ring-allreduce" in can and "tree-reduce" in can and "alpha-beta" not in can


#: the exercises whose call takes more than the built-in's tensor and which bench times on their
#: grader's inputs, scaled by exercise.toml's bench_scale
SCALED = ("zero1-step", "tp-mlp", "sequence-parallel", "ddp-overlap", "fsdp-prefetch",
          "pipeline-1f1b", "ring-attention", "double-binary-tree", "compressed-allreduce",
          "oneshot-twoshot", "ulysses", "moe-dispatch-combine", "pipeline-gpipe",
          "bucketed-allreduce")


def test_every_exercise_with_a_builtin_counterpart_is_benchable() -> None:
    from cjudge.bench.cli import unbenchable
    from cjudge.exercise.exercises import load_exercises

    exercises = load_exercises(default_root())
    assert {i for i in SCALED if unbenchable(exercises[i]) is None} == set(SCALED)
    assert all(exercises[i].bench_scale for i in SCALED)


def test_every_entry_of_a_starred_list_scales() -> None:
    """bucketed-allreduce's ``sizes[*]``: every gradient and the bucket grow together, so the
    greedy packing stays the sample's (the grader refuses a case whose ``buckets`` it breaks)."""
    from cjudge.bench.learners import scaled_case
    from cjudge.exercise.exercises import load_exercises

    exercise = load_exercises(default_root())["bucketed-allreduce"]
    sample = next(c for c in exercise.cases if c.sample).params
    case = scaled_case(exercise, exercise.bench_scale, 2, 4096)
    factor = case["params"]["bucket_bytes"] // sample["bucket_bytes"]
    assert factor > 1
    assert case["params"]["sizes"] == [k * factor for k in sample["sizes"]]


def test_a_starred_list_must_hold_integers_in_the_sample(tmp_path: Path) -> None:
    """``sizes[*]`` checks every entry of the sample's list (cases that give ``count`` and
    ``numel`` instead, never scaled, load as they are)."""
    import shutil

    from cjudge.exercise.exercises import ExerciseError, load_exercise

    folder = tmp_path / "bucketed-allreduce"
    shutil.copytree(default_root() / folder.name, folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    load_exercise(folder)
    toml.write_text(toml.read_text().replace("sizes = [3, 5, 2, 6, 4]", "sizes = [3, 5, 2.5]", 1))
    with pytest.raises(ExerciseError, match="names 'sizes', which case 'sample-4-ranks'"):
        load_exercise(folder)


def test_symmetric_memory_is_shared_memory_under_bench(tmp_path: Path) -> None:
    """One-shot's loads read what the peers stored into a file every rank maps, after gloo's
    barrier; a file that forgets the barrier may race there, so only the reference is run."""
    run = run_bench(tmp_path, "oneshot-twoshot", *QUICK)
    assert run.code == 0, run.stderr
    _, learner = run.doc["series"]
    assert learner["label"] == "oneshot-twoshot"
    assert all(r["wrong"] == 0 for s in run.doc["series"] for r in s["rows"])


def test_a_judge_function_exercise_on_its_scaled_grader_inputs(tmp_path: Path) -> None:
    """ddp-overlap's backward is the judge's generator, applied on the rank; the gradients grow
    with the size (numel and bucket_bytes together), and the means are checked."""
    run = run_bench(tmp_path, "ddp-overlap", *QUICK)
    assert run.code == 0, run.stderr
    builtin, learner = run.doc["series"]
    assert (builtin["label"], learner["label"]) == ("all_reduce", "ddp-overlap")
    assert [r["size"] for r in learner["rows"]] == [1024, 2048]
    assert all(r["wrong"] == 0 for s in run.doc["series"] for r in s["rows"])


def test_a_wrong_scaled_exercise_fails_its_check(tmp_path: Path) -> None:
    wrong = str(default_root() / "zero1-step" / "wrong" / "sum_not_mean.py")
    run = run_bench(tmp_path, "zero1-step", wrong, *QUICK)
    assert run.code == 1
    _, learner = run.doc["series"]
    assert [r["wrong"] for r in learner["rows"]] == [2, 2]  # a wrong result on each of 2 ranks
