"""The real runtime (forked gloo ranks) and the grading of what it reports."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.grading.helpers import judge, judge_first_case

ROOT = Path(__file__).resolve().parents[2]

RING_BLOCKING = """
import torch
import torch.distributed as dist

def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    chunks = list(t.chunk(n))
    for phase in range(2):
        for step in range(n - 1):
            send_idx = (rank - step + phase) % n
            recv_idx = (rank - step - 1 + phase) % n
            buf = torch.empty_like(chunks[recv_idx])
            if rank % 2 == 0:
                dist.send(chunks[send_idx].contiguous(), (rank + 1) % n)
                dist.recv(buf, (rank - 1) % n)
            else:
                dist.recv(buf, (rank - 1) % n)
                dist.send(chunks[send_idx].contiguous(), (rank + 1) % n)
            if phase == 0:
                chunks[recv_idx] += buf
            else:
                chunks[recv_idx].copy_(buf)
"""


def test_blocking_send_recv_ring_is_correct_counted_once_and_modelled_twice_as_slow():
    result = judge("ring-allreduce", RING_BLOCKING)
    # correct and within bytes, but even ranks send while odd ones receive, then the other way
    # round: every ring step costs two latencies, so the model finds it too slow at 4 KiB
    assert result["verdict"] == "too_slow", result["message"]
    assert "12 steps × 5 µs" in result["message"]
    for case in result["cases"]:
        n = case["world_size"]
        sends = [e for e in case["trace"] if e["op"] == "send"]
        assert len(sends) == n * 2 * (n - 1)  # dist.send is isend().wait(): one event, not two
        assert sum(e["bytes"] for e in sends) == sum(case["bytes_sent"])
        assert {e["line"] for e in sends} == {14, 18}


@pytest.mark.parametrize(("call", "api"), [
    ("dist.all_reduce(t)", "all_reduce"),
    ("dist.group.WORLD.allreduce([t]).wait()", "ProcessGroup.allreduce (all_reduce)"),
    ("torch.ops.c10d.allreduce_([t], dist.group.WORLD, torch.classes.c10d.ReduceOp(), None, "
     "False, -1)", "ProcessGroup.allreduce (all_reduce)"),
    ("import torch.distributed._functional_collectives as fc; "
     "fc.all_reduce(t, 'sum', dist.group.WORLD).wait()", "all_reduce"),
])
def test_forbidden_primitive_fails_at_the_call_through_every_door(call, api):
    raw, case = judge_first_case("ring-allreduce", f"""
        import torch
        import torch.distributed as dist

        def ring_all_reduce(t):
            x = 1
            {call}
    """)
    assert case["verdict"] == "forbidden_primitive"
    assert case["message"].startswith(f"rank 0, line 7: calls {api}, which this exercise "
                                      "does not allow (allowed: send, recv, isend, irecv, "
                                      "batch_isend_irecv)"), case["message"]
    assert f"调用了本题禁止的 {api}" in case["message_zh"]
    assert case["bytes_sent"] == [0, 0, 0, 0]


def test_deadlock_is_reported_quickly_as_who_waits_on_whom():
    raw, case = judge_first_case("ring-allreduce", """
        import torch
        import torch.distributed as dist

        def ring_all_reduce(t):
            if dist.get_rank() == 0:
                return
            dist.recv(torch.empty_like(t), 0)
    """)
    assert case["verdict"] == "deadlock"
    # who waits on whom first, then the advice: the ranks make different numbers of calls
    assert case["message"].startswith(
        "ranks 1–3 wait in recv from rank 0 (line 8); rank 0 has returned; fix: ")
    assert "make different numbers of calls" in case["message"]
    assert case["message_zh"].startswith(
        "rank 1–3 在 recv 中等待来自 rank 0 的数据（第 8 行）；rank 0 已经返回")
    assert case["wall_ms"] < 3000


def test_a_ring_where_everyone_receives_first_deadlocks_in_a_cycle():
    raw, case = judge_first_case("ring-allreduce", """
        import torch
        import torch.distributed as dist

        def ring_all_reduce(t):
            rank, n = dist.get_rank(), dist.get_world_size()
            dist.recv(torch.empty_like(t), (rank - 1) % n)
            dist.send(t, (rank + 1) % n)
    """)
    assert case["verdict"] == "deadlock"
    assert case["deadlock"]["cycle"] == [0, 3, 2, 1, 0]
    assert "ranks 0–3 wait in recv (line 7), each from a peer that is itself blocked in recv " \
        "(line 7) (0 from 3, 1 from 0, 2 from 1, 3 from 2)" in case["message"]


def test_runtime_error_shows_only_the_learners_frames_with_its_line_numbers():
    raw, case = judge_first_case("ring-allreduce", """
        def helper(x):
            return x[10 ** 6]

        def ring_all_reduce(t):
            helper(t)
    """)
    assert case["verdict"] == "runtime_error"
    assert "IndexError" in case["message"]
    trace = case["details"][0]
    assert 'File "learner.py", line 3, in helper\n    return x[10 ** 6]' in trace
    assert 'File "learner.py", line 6, in ring_all_reduce' in trace
    assert "cjudge" not in trace and "torch" not in trace.split("IndexError")[0]


def test_missing_function_is_a_runtime_error_naming_it():
    result = judge("ring-allreduce", "def ring_allreduce(t):\n    pass\n")
    assert result["verdict"] == "runtime_error"
    assert "ring_all_reduce" in result["message"]


def test_compile_error_gives_line_and_column():
    result = judge("ring-allreduce", "def ring_all_reduce(t):\n    return (t +\n")
    assert result["verdict"] == "compile_error"
    assert result["line"] == 2 and result["column"] is not None
    assert "line 2" in result["message"] and "第 2 行" in result["message_zh"]
    assert result["cases"] == []


def test_spinning_rank_hits_the_time_limit():
    raw, case = judge_first_case("ring-allreduce", """
        import torch.distributed as dist

        def ring_all_reduce(t):
            while dist.get_rank() == 2:
                pass
    """, time_limit_s=1.5)
    assert case["verdict"] == "time_limit"
    assert 1400 < case["wall_ms"] < 4000
    assert case["message"].startswith("rank 2 still computing after the")
    assert "waiting" not in case["message"]  # the other ranks returned


def test_flooding_output_is_stopped_and_bounded():
    raw, case = judge_first_case("ring-allreduce", """
        def ring_all_reduce(t):
            while True:
                print("x" * 1000)
    """)
    assert case["verdict"] == "output_limit"
    assert len(raw["stdout"]) <= 65536 + 100


def test_module_level_prints_are_captured_per_rank():
    result = judge("ring-allreduce", """
        import torch.distributed as dist
        print("hello from", dist.get_rank())

        def ring_all_reduce(t):
            pass
    """, only_samples=True)
    assert "[rank 3] hello from 3" in result["stdout"]


def test_wrong_answer_names_case_rank_index_and_the_missing_contribution():
    result = judge("ring-allreduce", """
        import torch
        import torch.distributed as dist

        def ring_all_reduce(t):
            # only the right neighbour's contribution is added: others are missing
            rank, n = dist.get_rank(), dist.get_world_size()
            buf = torch.empty_like(t)
            reqs = [dist.isend(t.clone(), (rank + 1) % n), dist.irecv(buf, (rank - 1) % n)]
            for r in reqs:
                r.wait()
            if n == 2:
                return
            t += buf
    """, all_cases=True)
    two = next(c for c in result["cases"] if c["world_size"] == 2)
    assert two["verdict"] == "wrong_answer"
    assert "rank 0: first wrong element at index 0" in two["message"]
    assert "still holds this rank's own input: it was never reduced" in two["message"]
    three = next(c for c in result["cases"] if c["world_size"] == 3)
    assert f"case {three['name']}, rank 0: first wrong element at index 0" in three["message"]
    assert "rank 1's contribution" in three["message"] and "is missing" in three["message"]
    assert "缺少 rank 1 的贡献" in three["message_zh"]


def test_correct_but_over_the_byte_budget():
    result = judge("ring-allreduce", """
        import torch
        import torch.distributed as dist

        def ring_all_reduce(t):
            rank, n = dist.get_rank(), dist.get_world_size()
            total = t.clone()
            for step in range(1, n):  # send the whole tensor to every other rank
                buf = torch.empty_like(t)
                reqs = [dist.isend(t, (rank + step) % n), dist.irecv(buf, (rank - step) % n)]
                for r in reqs:
                    r.wait()
                total += buf
            t.copy_(total)
    """)
    assert result["verdict"] == "over_budget"
    case = result["cases"][0]
    assert case["bytes_sent"][0] == 3 * 8 * 4 > case["bytes_bound"] == 48
    assert f"sent {3 * 8 * 4} bytes in 3 calls (line 10: 3 messages to ranks 1, 2, 3, 8 " \
        "elements each); its bound is 48 bytes (12 elements)" in case["message"]


def test_torchrun_launcher_gives_the_same_verdicts_and_bytes():
    for code in (RING_BLOCKING, "import torch.distributed as dist\n"
                                "def ring_all_reduce(t):\n    dist.all_reduce(t)\n"):
        _, forked = judge_first_case("ring-allreduce", code)
        _, torchrun = judge_first_case("ring-allreduce", code, launcher="torchrun")
        assert torchrun["verdict"] == forked["verdict"]
        assert torchrun["bytes_sent"] == forked["bytes_sent"]


@pytest.mark.parametrize("hog", ["torch.empty(10 ** 10)", "[0] * (10 ** 10)"])
def test_memory_hog_gets_memory_limit(hog):
    raw, case = judge_first_case("ring-allreduce", f"""
        import torch

        def ring_all_reduce(t):
            x = {hog}
    """)
    assert case["verdict"] == "memory_limit"
    assert "rank 0, line 5 ran out of memory" in case["message"]


@pytest.mark.parametrize(("bypass", "verdict"), [
    # the rank's own door to the switch, found with gc: a forged request is still a request
    ("""
    import gc
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    port.graded = False  # so that it posts quietly, without waiting for a refusal
    port.post("post_collective", "all_reduce", bytes(4 * t.numel()), group=0, kind="all_reduce",
              dtype="float32", line=1, api="x", op="sum", root=None, splits=None)
    """, "forbidden_primitive"),
    # raw bytes onto the channel: the judge reads no frame, the rank loses its channel
    ("""
    import gc, socket
    sock = next(o for o in gc.get_objects() if isinstance(o, socket.socket))
    sock.sendall(b"\\xff" * 64)
    sock.recv(1)
    """, "runtime_error"),
    # a request naming another rank's handle, and one claiming a huge payload
    ("""
    import gc, struct
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    port.call("wait", handle=1)
    """, "runtime_error"),
    ("""
    import gc, struct
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    port.sock.sendall(struct.pack(">II", 2, 2 ** 31) + b"{}")
    port.sock.recv(1)
    """, "runtime_error"),
])
def test_nothing_sent_around_the_process_group_gets_past_the_switch(bypass, verdict):
    body = "\n".join("    " + line for line in textwrap.dedent(bypass).strip().splitlines())
    code = f"import torch\nimport torch.distributed as dist\n\n\ndef ring_all_reduce(t):\n{body}\n"
    result = judge("ring-allreduce", code)
    assert result["verdict"] == verdict, result["message"]
    assert result["cases"][0]["bytes_sent"] == [0, 0, 0, 0]


def test_a_rank_cannot_reach_the_judges_descriptors():
    raw, case = judge_first_case("ring-allreduce", """
        import os

        def ring_all_reduce(t):
            print(sorted(int(fd) for fd in os.listdir("/proc/self/fd")))
    """)
    assert "[rank 0] [0, 1, 2," in raw["stdout"]
    assert case["verdict"] == "wrong_answer"
