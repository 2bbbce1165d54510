"""The CPython runtime: stops (deadlock, time limit, output limit), errors, output, loading."""

from __future__ import annotations

import time

import pytest

from .helpers import calls, data, outputs, run


def inputs(n: int, k: int = 2) -> list:
    return [data([float(10 * r + i) for i in range(k)]) for r in range(n)]


RECV_FIRST_RING = """
import torch
import torch.distributed as dist

def f(t):
    r, n = dist.get_rank(), dist.get_world_size()
    buf = torch.empty_like(t)
    dist.recv(buf, (r - 1) % n)
    dist.send(t, (r + 1) % n)
    return buf
"""


@pytest.mark.parametrize("n", [2, 4])
def test_a_ring_where_everyone_receives_first_is_a_deadlock_found_at_once(n):
    start = time.monotonic()
    raw = run(RECV_FIRST_RING, inputs(n))
    assert time.monotonic() - start < 1.5
    assert raw["stop"] == "deadlock"
    assert [(r["state"], r["waiting"]) for r in raw["ranks"]] == [("blocked", "recv")] * n
    assert [(e["rank"], e["op"], e["peer"]) for e in sorted(calls(raw), key=lambda e: e["rank"])] \
        == [(r, "recv", (r - 1) % n) for r in range(n)]


def test_blocking_sends_first_deadlock_as_under_gloo():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            peer = 1 - dist.get_rank()
            dist.send(t, peer)
            dist.recv(t, peer)
            return t
    """, inputs(2))
    assert raw["stop"] == "deadlock"
    assert [r["waiting"] for r in raw["ranks"]] == ["send", "send"]


def test_a_rank_that_returned_stays_returned_and_its_peer_hangs():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            if dist.get_rank() == 1:
                dist.recv(t, 0)
            return t
    """, inputs(2))
    assert raw["stop"] == "deadlock"
    assert raw["ranks"][0]["state"] == "returned" and raw["ranks"][0]["output"]["data"] == [0, 1]
    assert raw["ranks"][1]["state"] == "blocked" and raw["ranks"][1]["waiting"] == "recv"


def test_ranks_stuck_after_another_failed_report_the_failure_not_a_deadlock():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            if dist.get_rank() == 0:
                raise ValueError("boom")
            dist.recv(t, 0)
    """, inputs(2))
    assert raw["stop"] is None
    assert raw["ranks"][0]["state"] == "failed" and raw["ranks"][1]["state"] == "blocked"


def test_collectives_called_differently_by_the_ranks_deadlock():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            if dist.get_rank() == 0:
                dist.all_reduce(t)
            else:
                dist.broadcast(t, 0)
            return t
    """, inputs(2))
    assert raw["stop"] == "deadlock"
    assert [r["waiting"] for r in raw["ranks"]] == ["all_reduce", "broadcast"]


@pytest.mark.parametrize("body", [
    "while True:\n        pass",
    "import time\n    time.sleep(60)",
    "while True:\n        try:\n            while True:\n                pass\n"
    "        except BaseException:\n            pass",
])
def test_a_rank_that_never_ends_hits_the_time_limit(body):
    start = time.monotonic()
    raw = run(f"def f(t):\n    {body}\n", inputs(2), time_limit_s=0.5)
    assert time.monotonic() - start < 1.5
    assert raw["stop"] == "time_limit"
    assert [r["state"] for r in raw["ranks"]] == ["running", "running"]


def test_a_rank_holding_the_interpreter_in_c_code_is_killed_after_a_grace():
    start = time.monotonic()
    raw = run("def f(t):\n    return sum(range(10 ** 13))\n", inputs(1), time_limit_s=0.3)
    assert raw["stop"] == "time_limit" and time.monotonic() - start < 4.0


def test_printed_output_is_captured_per_rank_with_a_prefix():
    raw = run("""
        import torch.distributed as dist
        print("loaded", dist.get_rank())
        def f(t):
            print("in f", t.tolist())
            print("two\\nlines")
            return t
    """, inputs(2))
    assert raw["stdout"].splitlines() == [
        "[rank 0] loaded 0", "[rank 0] in f [0.0, 1.0]", "[rank 0] two", "[rank 0] lines",
        "[rank 1] loaded 1", "[rank 1] in f [10.0, 11.0]", "[rank 1] two", "[rank 1] lines",
    ]


def test_printing_past_the_output_limit_stops_the_case():
    raw = run("""
        def f(t):
            while True:
                print("spam " * 20)
    """, inputs(2), output_limit_bytes=1000)
    assert raw["stop"] == "output_limit"
    assert len(raw["stdout"]) <= 1000 + len("\n… (output cut)")


def test_errors_show_only_the_learners_frames_and_lines():
    raw = run("""
        import torch

        def helper(t):
            return t.view(3, 5)

        def f(t):
            return helper(t)
    """, inputs(1, 4))
    err = raw["ranks"][0]["error"]
    assert err["kind"] == "exception" and err["type"] == "RuntimeError" and err["line"] == 5
    assert "shape '[3, 5]' is invalid for input of size 4" in err["message"]
    assert 'File "learner.py", line 8, in f' in err["traceback"]
    assert 'File "learner.py", line 5, in helper' in err["traceback"]
    assert "cjudge" not in err["traceback"] and "threading" not in err["traceback"]


def test_module_level_code_runs_once_per_rank_after_the_group_exists():
    raw = run("""
        import torch
        import torch.distributed as dist
        from torch import distributed as dist2
        from torch.distributed import ReduceOp
        dist.init_process_group("gloo")     # a torchrun-style file: a no-op here
        RANK, WORLD = dist.get_rank(), dist2.get_world_size()
        COUNT = torch.zeros(1)
        COUNT += 1
        flag = torch.tensor([RANK])
        dist.all_reduce(flag, op=ReduceOp.MAX)

        def f(t):
            return torch.tensor([float(RANK), float(WORLD), COUNT.item(), float(flag.item()),
                                 float(dist.is_initialized())])
        dist.destroy_process_group()
    """, inputs(3))
    assert outputs(raw) == [[float(r), 3.0, 1.0, 2.0, 1.0] for r in range(3)]


def test_inplace_output_is_the_argument_and_return_output_is_the_value_returned():
    raw = run("def f(t):\n    t.mul_(2)\n    return [1, 2]\n", inputs(2), output="inplace")
    assert outputs(raw) == [[0.0, 2.0], [20.0, 22.0]]
    raw = run("def f(t):\n    t.mul_(2)\n    return [1, (t, {})]\n", inputs(1), output="return")
    [rank] = raw["ranks"]
    assert rank["state"] == "returned"
    assert rank["output"] == [1, {"tuple": [{"shape": [2], "dtype": "float32", "data": [0.0, 2.0]},
                                             {"object": "dict"}]}]


def test_a_missing_function_and_a_syntax_error_are_rank_errors():
    raw = run("def g(t):\n    return t\n", inputs(1))
    assert raw["ranks"][0]["error"]["type"] == "NameError"
    assert "must define a function `f`" in raw["ranks"][0]["error"]["message"]
    raw = run("def f(t)\n    return t\n", inputs(2))
    assert [r["error"]["type"] for r in raw["ranks"]] == ["SyntaxError", "SyntaxError"]


def test_a_learner_ending_the_process_fails_every_rank_cleanly():
    raw = run("import os\n\ndef f(t):\n    os._exit(3)\n", inputs(2))
    assert [r["state"] for r in raw["ranks"]] == ["failed", "failed"]
    assert "exited with status 3" in raw["ranks"][0]["error"]["message"]


def test_a_flood_of_requests_stops_the_case_with_its_own_reason():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            peer = 1 - dist.get_rank()
            while True:
                dist.isend(t, peer) if dist.get_rank() == 0 else dist.irecv(t, peer)
    """, inputs(2), time_limit_s=30)
    assert raw["stop"] == "trace_limit"
    assert raw["trace"]["limit"] == "requests" and len(raw["trace"]["requests"]) == 20_000
