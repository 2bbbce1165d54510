"""Trace events (bytes by primitives.bytes_sent, the learner's line) and forbidden primitives."""

from __future__ import annotations

import pytest

from cjudge.contract.primitives import bytes_sent

from .helpers import calls, data, outputs, run


def inputs(n: int, k: int) -> list:
    return [data([float(10 * r + i) for i in range(k)]) for r in range(n)]


def events_of(raw, rank):
    return [e for e in calls(raw) if e["rank"] == rank]


def test_each_call_is_one_event_with_bytes_line_and_peer():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            r, n = dist.get_rank(), dist.get_world_size()
            dist.send(t, (r + 1) % n) if r == 0 else None
            dist.recv(torch.empty(16), (r - 1) % n) if r == 1 else None
            dist.all_reduce(t)
            dist.broadcast(t, src=2)
            out = torch.empty(4)
            dist.reduce_scatter_tensor(out, t)
            dist.all_gather_into_tensor(t, out)
            dist.all_to_all_single(torch.empty(16), t)
            dist.barrier()
            return t
    """, inputs(4, 16))
    nbytes = 64
    for rank in range(4):
        got = [(e["op"], e["peer"], e["bytes"], e["line"], e["count"], e["dtype"])
               for e in events_of(raw, rank)]
        want = []
        if rank == 0:
            want.append(("send", 1, nbytes, 5, 16, "float32"))
        if rank == 1:
            want.append(("recv", 0, 0, 6, 16, "float32"))
        want += [
            ("all_reduce", None, bytes_sent("all_reduce", 4, rank, nbytes), 7, 16, "float32"),
            ("broadcast", 2, bytes_sent("broadcast", 4, rank, nbytes, root=2), 8, 16, "float32"),
            ("reduce_scatter", None, bytes_sent("reduce_scatter", 4, rank, nbytes), 10, 16,
             "float32"),
            ("all_gather", None, bytes_sent("all_gather", 4, rank, nbytes), 11, 16, "float32"),
            ("all_to_all", None, bytes_sent("all_to_all", 4, rank, nbytes), 12, 16, "float32"),
            ("barrier", None, 0, 13, 0, "none"),
        ]
        assert got == want
        assert [e["seq"] for e in events_of(raw, rank)] == list(range(len(want)))
    # count is the output's for all_gather_into_tensor, as the real runtime records it
    # the hand-computed volumes: all_reduce 2(n-1)/n·S, broadcast root (n-1)·S
    assert events_of(raw, 0)[1]["bytes"] == 96 and events_of(raw, 2)[1]["bytes"] == 192


def test_send_through_isend_wait_batch_and_the_process_group_counts_once_each():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            peer = 1 - dist.get_rank()
            b = torch.empty(3)
            w = dist.batch_isend_irecv([dist.P2POp(dist.isend, t, peer), dist.P2POp(dist.irecv, b, peer)])
            [x.wait() for x in w]
            dist.group.WORLD.send([t], peer).wait() if dist.get_rank() == 0 else dist.recv(b, 0)
            return t
    """, inputs(2, 3))
    got = sorted((e["rank"], e["seq"], e["op"], e["bytes"], e["api"]) for e in calls(raw))
    assert got == [
        (0, 0, "send", 12, "batch_isend_irecv"), (0, 1, "recv", 0, "batch_isend_irecv"),
        (0, 2, "send", 12, "ProcessGroup.send"),
        (1, 0, "send", 12, "batch_isend_irecv"), (1, 1, "recv", 0, "batch_isend_irecv"),
        (1, 2, "recv", 0, "recv"),
    ]


def test_uneven_all_to_all_counts_only_the_blocks_sent_away():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            r = dist.get_rank()
            out = torch.empty(3 if r == 0 else 4)
            dist.all_to_all_single(out, t, [1, 2] if r == 0 else [2, 2], [1, 3] if r == 0 else [2, 2])
            return out
    """, inputs(2, 4))
    assert [e["bytes"] for e in calls(raw) if e["rank"] == 0] == [12]  # 3 floats to rank 1
    assert [e["bytes"] for e in calls(raw) if e["rank"] == 1] == [8]


def test_calls_outside_the_graded_function_are_neither_checked_nor_recorded():
    raw = run("""
        import torch, torch.distributed as dist
        x = torch.ones(2)
        dist.all_reduce(x)                    # module level: allowed, not recorded
        def f(t):
            dist.send(t, 1) if dist.get_rank() == 0 else dist.recv(t, 0)
            return x
    """, inputs(2, 2), allowed=["send", "recv"])
    assert outputs(raw) == [[2.0, 2.0]] * 2
    assert sorted(e["op"] for e in calls(raw)) == ["recv", "send"]


@pytest.mark.parametrize("call, api", [
    ("dist.all_reduce(t)", "all_reduce"),
    ("dist.group.WORLD.allreduce([t]).wait()", "ProcessGroup.allreduce"),
    ("dist.batch_isend_irecv([dist.P2POp(dist.isend, t, 1 - dist.get_rank())])",
     "batch_isend_irecv"),
    ("dist.all_to_all_single(torch.empty_like(t), t)", "all_to_all_single"),
])
def test_a_forbidden_primitive_fails_at_the_call_with_its_line(call, api):
    raw = run(f"""
        import torch
        import torch.distributed as dist

        def f(t):
            x = 1
            {call}
            return t
    """, inputs(2, 2), allowed=["all_gather"])
    for report in raw["ranks"]:
        err = report["error"]
        assert report["state"] == "failed" and err["kind"] == "forbidden"
        assert err["line"] == 7 and api in err["message"]
        assert "allowed here: all_gather_into_tensor" in err["message"]
        assert 'File "learner.py", line 7, in f' in err["traceback"]
        assert "cjudge" not in err["traceback"]
    assert calls(raw) == []


def test_the_refused_call_did_nothing_so_peers_are_not_fed():
    raw = run("""
        import torch.distributed as dist
        def f(t):
            if dist.get_rank() == 0:
                try:
                    dist.send(t, 1)
                except RuntimeError:
                    pass
                return t
            dist.recv(t, 0)
            return t
    """, inputs(2, 1), allowed=["recv"])
    assert raw["stop"] == "deadlock"
    assert raw["ranks"][1]["state"] == "blocked" and raw["ranks"][1]["waiting"] == "recv"
