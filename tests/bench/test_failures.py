"""A hung or crashing learner, and bad arguments: clear reports, every rank stopped."""

from pathlib import Path

from .helpers import QUICK, run_bench

HANGS = '''
import torch.distributed as dist


def ring_all_reduce(t):
    if dist.get_rank() == 1:
        dist.recv(t, 0)  # rank 0 never sends
'''

CRASHES = '''
def ring_all_reduce(t):
    raise ValueError("boom")
'''


def _file(tmp_path: Path, code: str) -> str:
    path = tmp_path / "learner.py"
    path.write_text(code)
    return str(path)


def test_hang_timeout_names_the_ranks_that_did_not_finish(tmp_path: Path) -> None:
    run = run_bench(tmp_path, "ring-allreduce", _file(tmp_path, HANGS), *QUICK, "-T", "1.5")
    assert run.code == 3
    assert run.doc["status"] == "timeout" and run.doc["unfinished_ranks"] == [1]
    assert ("rank 1 did not finish the correctness check of ring-allreduce 1 KiB; "
            "rank 0 finished it") in run.doc["message"]
    assert run.doc["message"] in run.stderr.replace("\n", " ") or "did not finish" in run.stderr
    assert [s["label"] for s in run.doc["series"]] == ["all_reduce"]  # what finished is kept


def test_crash_shows_the_learners_traceback(tmp_path: Path) -> None:
    path = _file(tmp_path, CRASHES)
    run = run_bench(tmp_path, "ring-allreduce", path, *QUICK)
    assert run.code == 3 and run.doc["status"] == "failed"
    assert f'File "{path}", line 3, in ring_all_reduce' in run.doc["message"]
    assert "ValueError: boom" in run.stderr
    assert "cjudge/bench" not in run.doc["message"].split("then failed too")[0]


def test_bad_arguments(tmp_path: Path) -> None:
    for args, words in ((["no-such-exercise"], "bench knows no exercise"),
                        (["-b", "1Q"], "bad size"), (["--collectives", "gather"], "unknown collective"),
                        (["-r", "5"], "the root must be a rank"), (["-d", "complex"], "datatype")):
        run = run_bench(tmp_path, *QUICK, *args)
        assert run.code == 2 and words in run.stderr, (args, run.stderr)
        assert run.doc is None
