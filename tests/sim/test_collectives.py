"""Every collective and p2p call against hand-computed results, on 2, 3 and 4 ranks.

Rank r's input is ``[10r, 10r+1, …]``: each element says which rank and index it came from.
"""

from __future__ import annotations

import math

import pytest

from .helpers import calls, data, outputs, run

WORLDS = [2, 3, 4]


def inputs(n: int, k: int, dtype: str = "float32") -> list:
    return [data([10 * r + i for i in range(k)], dtype) for r in range(n)]


@pytest.mark.parametrize("n", WORLDS)
@pytest.mark.parametrize("op", ["SUM", "PRODUCT", "MIN", "MAX", "AVG"])
def test_all_reduce(n, op):
    dtype = "float64" if op == "AVG" else "int64"
    raw = run(f"""
        import torch.distributed as dist
        def f(t):
            dist.all_reduce(t, op=dist.ReduceOp.{op})
            return t
    """, inputs(n, 3, dtype))
    combine = {"SUM": sum, "PRODUCT": math.prod, "MIN": min, "MAX": max,
               "AVG": lambda v: sum(v) / n}[op]
    expected = [combine([10 * r + i for r in range(n)]) for i in range(3)]
    assert outputs(raw) == [expected] * n


@pytest.mark.parametrize("n", WORLDS)
def test_reduce_scatter_tensor(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            out = torch.empty(2)
            dist.reduce_scatter_tensor(out, t)
            return out
    """, inputs(n, 2 * n))
    assert outputs(raw) == [[sum(10 * q + 2 * r + j for q in range(n)) for j in range(2)]
                            for r in range(n)]


@pytest.mark.parametrize("n", WORLDS)
def test_reduce_scatter_of_a_list(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            out = torch.empty(2)
            dist.reduce_scatter(out, list(t.chunk(dist.get_world_size())))
            return out
    """, inputs(n, 2 * n))
    assert outputs(raw) == [[sum(10 * q + 2 * r + j for q in range(n)) for j in range(2)]
                            for r in range(n)]


@pytest.mark.parametrize("n", WORLDS)
def test_all_gather_into_a_list_and_into_a_tensor(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            parts = [torch.zeros(2) for _ in range(dist.get_world_size())]
            dist.all_gather(parts, t)
            flat = torch.empty(2 * dist.get_world_size())
            dist.all_gather_into_tensor(flat, t)
            assert torch.equal(torch.cat(parts), flat)
            return flat
    """, inputs(n, 2))
    assert outputs(raw) == [[10 * q + i for q in range(n) for i in range(2)]] * n


@pytest.mark.parametrize("n", WORLDS)
def test_all_to_all_single_even_is_a_transpose(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            out = torch.empty_like(t)
            dist.all_to_all_single(out, t)
            return out
    """, inputs(n, n))
    assert outputs(raw) == [[10 * q + r for q in range(n)] for r in range(n)]


@pytest.mark.parametrize("n", WORLDS)
def test_all_to_all_single_with_split_sizes(n):
    # rank r sends q+1 elements to rank q: its input holds sum(q+1) elements
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            r, n = dist.get_rank(), dist.get_world_size()
            out = torch.empty(n * (r + 1))
            dist.all_to_all_single(out, t, [r + 1] * n, [q + 1 for q in range(n)])
            return out
    """, inputs(n, n * (n + 1) // 2))
    expected = []
    for r in range(n):
        start = r * (r + 1) // 2  # the offset of the block for rank r in every input
        expected.append([10 * q + start + j for q in range(n) for j in range(r + 1)])
    assert outputs(raw) == expected


@pytest.mark.parametrize("n", WORLDS)
def test_all_to_all_of_lists(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            n = dist.get_world_size()
            outs = [torch.zeros(1) for _ in range(n)]
            dist.all_to_all(outs, list(t.chunk(n)))
            return torch.cat(outs)
    """, inputs(n, n))
    assert outputs(raw) == [[10 * q + r for q in range(n)] for r in range(n)]


@pytest.mark.parametrize("n", WORLDS)
def test_broadcast_and_reduce(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            b = t.clone()
            dist.broadcast(b, src=1)
            s = t.clone()
            dist.reduce(s, dst=0)
            return torch.cat([b, s])
    """, inputs(n, 2))
    total = [sum(10 * q + i for q in range(n)) for i in range(2)]
    expected = [[10, 11] + (total if r == 0 else [10 * r, 10 * r + 1]) for r in range(n)]
    assert outputs(raw) == expected


@pytest.mark.parametrize("n", WORLDS)
def test_gather_and_scatter(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            r, n = dist.get_rank(), dist.get_world_size()
            parts = [torch.zeros(2) for _ in range(n)] if r == n - 1 else None
            dist.gather(t, parts, dst=n - 1)
            got = torch.zeros(2)
            dist.scatter(got, [t + 100 * q for q in range(n)] if r == 0 else None, src=0)
            gathered = torch.cat(parts) if parts else torch.zeros(2 * n)
            return torch.cat([got, gathered])
    """, inputs(n, 2))
    gathered = [10 * q + i for q in range(n) for i in range(2)]
    expected = [[100 * r, 100 * r + 1] + (gathered if r == n - 1 else [0] * 2 * n)
                for r in range(n)]
    assert outputs(raw) == expected


@pytest.mark.parametrize("n", WORLDS)
def test_point_to_point_ring_every_way(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            r, n = dist.get_rank(), dist.get_world_size()
            right, left = (r + 1) % n, (r - 1) % n
            a = torch.zeros(2)
            reqs = [dist.isend(t, right), dist.irecv(a, left)]
            for q in reqs:
                q.wait()
            b = torch.zeros(2)
            works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, b, right),
                                            dist.P2POp(dist.isend, t, left)])
            [w.wait() for w in works]
            c = torch.zeros(2)
            if r % 2 == 0:
                dist.send(t, right)
                src = dist.recv(c)           # from any source
            else:
                src = dist.recv(c)
                dist.send(t, right)
            assert src == left
            return torch.cat([a, b, c])
    """, inputs(n, 2))
    expected = []
    for r in range(n):
        left, right = (r - 1) % n, (r + 1) % n
        expected.append([10 * left, 10 * left + 1, 10 * right, 10 * right + 1,
                         10 * left, 10 * left + 1])
    assert outputs(raw) == expected


def test_messages_between_one_pair_arrive_in_order_and_tags_keep_them_apart():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            if dist.get_rank() == 0:
                w = [dist.isend(torch.tensor([float(i)]), 1, tag=i % 2) for i in range(4)]
                [x.wait() for x in w]
                return t
            got = []
            for tag in (1, 0, 1, 0):
                b = torch.zeros(1)
                dist.recv(b, 0, tag=tag)
                got.append(b.item())
            return torch.tensor(got)
    """, inputs(2, 1))
    assert outputs(raw)[1] == [1.0, 0.0, 3.0, 2.0]


@pytest.mark.parametrize("n", [3, 4])
def test_new_group_and_process_group_methods(n):
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            g = dist.new_group([0, 2])
            s = t.clone()
            if dist.get_rank() in (0, 2):
                assert g.size() == 2 and g.rank() == dist.get_rank() // 2
                dist.all_reduce(s, group=g)
            w = t.clone()
            dist.group.WORLD.allreduce([w]).wait()
            return torch.cat([s, w])
    """, inputs(n, 1))
    world_sum = sum(10 * q for q in range(n))
    expected = [[20.0 if r in (0, 2) else 10.0 * r, world_sum] for r in range(n)]
    assert outputs(raw) == expected


def test_async_collectives_barrier_and_work_objects():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            work = dist.all_reduce(t, async_op=True)
            assert work is not None
            work.wait()
            assert work.is_completed()
            assert dist.barrier() is None
            return t
    """, inputs(3, 2))
    assert outputs(raw) == [[30, 33]] * 3


def test_recv_into_a_larger_buffer_fills_its_start_and_a_smaller_one_fails_like_gloo():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            if dist.get_rank() == 0:
                dist.send(torch.ones(3), 1)
                dist.send(torch.ones(3), 1)
                return t
            big = torch.zeros(4)
            dist.recv(big, 0)
            assert big.tolist() == [1, 1, 1, 0]
            dist.recv(torch.zeros(2), 0)
    """, inputs(2, 1))
    report = raw["ranks"][1]
    assert report["state"] == "failed"
    assert "Received data size doesn't match" in report["error"]["message"]


def test_p2p_needs_contiguous_tensors_and_a_valid_peer():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            m = torch.zeros(2, 2)
            try:
                dist.isend(m[:, 0], 1 - dist.get_rank())
            except RuntimeError as e:
                assert "contiguous" in str(e)
            dist.send(t, dist.get_rank())
    """, inputs(2, 1))
    for report in raw["ranks"]:
        assert report["error"]["type"] == "RuntimeError"  # as gloo's "Pair is not connected"
        assert "should not be the same as the rank" in report["error"]["message"]


def test_strided_views_behave_as_under_gloo():
    # measured with torch 2.13 + gloo: all_reduce and broadcast use memory from the first element
    # on, ignoring strides; all_gather_into_tensor respects them
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            a, b, c = t.clone(), t.clone(), torch.zeros(8)
            dist.all_reduce(a[::2])
            dist.broadcast(b[::2], 0)
            dist.all_gather_into_tensor(c[::2], t[6:])
            return torch.cat([a, b, c])
    """, inputs(2, 8))
    assert outputs(raw)[1] == (
        [10, 12, 14, 16, 14, 15, 16, 17]  # a: its first four elements in memory were reduced
        + [0, 1, 2, 3, 14, 15, 16, 17]  # b: rank 0's first four elements in memory
        + [6, 0, 7, 0, 16, 0, 17, 0]  # c: every other element, as asked
    )


def test_gloo_refusals_of_non_contiguous_and_mixed_dtype_tensors():
    raw = run("""
        import torch, torch.distributed as dist
        def f(t):
            try:
                dist.all_to_all_single(torch.zeros(4), t.view(2, 2).t())
            except ValueError as e:
                assert str(e) == "Tensors must be contiguous"
            out = torch.zeros(4, dtype=torch.float64)
            dist.all_to_all_single(out, t)
    """, inputs(2, 4))
    for report in raw["ranks"]:
        assert report["error"]["type"] == "ValueError"
        assert "Invalid usage of tensors with different dtypes" in report["error"]["message"]
    assert calls(raw) == []  # refused by the backend's checks: neither call reached the switch


@pytest.mark.parametrize(("call", "big", "small"), [
    ("dist.all_gather_into_tensor(out, t)", "out", "t"),
    ("dist.reduce_scatter_tensor(out, t)", "t", "out"),
])
def test_a_fused_collective_with_the_wrong_size_fails_as_gloo_says(call: str, big: str,
                                                                    small: str) -> None:
    raw = run(f"""
        import torch
        import torch.distributed as dist
        def f(t):
            out = torch.zeros(5 if "{big}" == "out" else 1, dtype=t.dtype)
            {call}
            return out
    """, inputs(2, 3))
    message = raw["ranks"][0]["error"]["message"]
    assert "the larger tensor must hold world_size (2)" in message
    assert "it holds" in message
