"""The replay reproduces the chapter's closed forms from generated traces (within 0.1 %)."""

from __future__ import annotations

import pytest

from cjudge.model import reference as ref
from cjudge.model.replay import replay
from cjudge.model.topology import ModelError, get_topology
from cjudge.switch.trace import SwitchTrace

H100 = get_topology("h100x8")
TWO_NODES = get_topology("h100x8x2")
MB, GB = 10**6, 10**9


def close(seconds: float, expected: float) -> bool:
    return abs(seconds - expected) <= 1e-3 * expected


@pytest.mark.parametrize(("trace", "topo", "expected"), [
    (ref.ring_all_reduce(8, GB), H100, 3.9589e-3),
    (ref.ring_all_reduce(8, MB), H100, 73.89e-6),
    (ref.recursive_doubling(8, MB), H100, 21.67e-6),
    (ref.rabenseifner(8, MB), H100, 33.89e-6),
    (ref.ring_reduce_scatter(8, GB), H100, 1.979e-3),
    (ref.direct_all_to_all(8, MB), H100, 6.94e-6),
    (ref.binomial_broadcast(8, MB), H100, 21.67e-6),
    (ref.hierarchical_all_reduce(16, GB), TWO_NODES, 6.47e-3),
    (ref.ring_all_reduce(16, GB), TWO_NODES, 37.65e-3),
], ids=["ring-1GB", "ring-1MB", "recursive-doubling-1MB", "rabenseifner-1MB",
        "ring-reduce-scatter-1GB", "direct-all-to-all-1MB", "binomial-broadcast-1MB",
        "hierarchical-2x8-1GB", "flat-ring-2x8-1GB"])
def test_closed_forms(trace, topo, expected):
    result = replay(trace, topo)
    assert result.complete
    assert close(result.time, expected), result.time


def test_critical_path_splits_latency_and_bandwidth():
    r = replay(ref.ring_all_reduce(8, MB), H100)
    assert r.steps == 14
    assert r.latency == pytest.approx(70e-6)
    assert r.transfer == pytest.approx(14 * (MB / 8) / 450e9)
    assert r.time == pytest.approx(r.latency + r.transfer)
    assert r.link_bytes == {"intra": pytest.approx(8 * 14 * MB / 8)}


def test_scaling_a_small_run_gives_the_large_size():
    """A run with 4000-byte inputs scaled to 1 GB models the same as a 1 GB trace."""
    small = replay(ref.ring_all_reduce(8, 4000), H100, scale=GB / 4000)
    assert close(small.time, 3.9589e-3)


def test_contention_free_all_to_all_is_the_textbook_one_block():
    r = replay(ref.direct_all_to_all(8, MB), H100, contention=False)
    assert r.time == pytest.approx(5e-6 + (MB / 8) / 450e9)


def fan_out() -> SwitchTrace:
    """Rank 0 sends 1 MB to each of the 7 other ranks at once; every request waited."""
    b = ref.TraceBuilder(8)
    posted = []
    for dst in range(1, 8):
        posted += [(0, b.isend(0, dst, MB)), (dst, b.irecv(dst, 0, MB))]
    for rank, req in posted:
        b.wait(rank, req)
    return b.trace()


def test_port_contention_serialises_a_ranks_sends():
    """Rank 0 sends 1 MB to each of 7 ranks at once: one egress port, α paid once per message
    overlapped, the bytes one after another."""
    trace = fan_out()
    assert replay(trace, H100).time == pytest.approx(5e-6 + 7 * MB / 450e9)
    assert replay(trace, H100, contention=False).time == pytest.approx(5e-6 + MB / 450e9)


def test_full_duplex_two_ranks_swap_at_once():
    b = ref.TraceBuilder(2)
    b.exchange([(0, 1, MB), (1, 0, MB)])
    assert replay(b.trace(), H100).time == pytest.approx(5e-6 + MB / 450e9)


def test_two_node_links_and_separate_ports():
    """Rank 0 sends to rank 1 (NVLink) and rank 8 (NIC) at once: different ports, no waiting."""
    b = ref.TraceBuilder(16)
    b.exchange([(0, 1, GB), (0, 8, GB)])
    r = replay(b.trace(), TWO_NODES)
    assert r.time == pytest.approx(5e-6 + GB / 50e9)
    assert r.link_bytes == {"intra": GB, "inter": GB}


def test_a_wait_orders_a_ranks_program():
    """A blocking send chain 0 -> 1 -> 2: rank 1 forwards only after its receive completed."""
    b = ref.TraceBuilder(3)
    b.exchange([(0, 1, MB)])
    b.exchange([(1, 2, MB)])
    r = replay(b.trace(), H100)
    assert r.steps == 2
    assert r.time == pytest.approx(2 * (5e-6 + MB / 450e9))
    assert r.rank_time[0] == pytest.approx(5e-6 + MB / 450e9)


def test_rendezvous_waits_for_the_late_receiver():
    """A send posted at once but received only after the receiver's own transfer: it starts late."""
    b = ref.TraceBuilder(3)
    early = b.isend(0, 2, MB)
    b.exchange([(1, 2, MB)])
    late = b.irecv(2, 0, MB)
    b.wait(0, early)
    b.wait(2, late)
    assert replay(b.trace(), H100).time == pytest.approx(2 * (5e-6 + MB / 450e9))


def test_ungraded_communication_costs_nothing():
    trace = ref.ring_all_reduce(4, MB)
    for req in trace["requests"]:
        req["graded"] = False
    r = replay(trace, H100)
    assert r.time == 0 and r.complete


def test_a_wait_that_never_completes_marks_the_replay_incomplete():
    b = ref.TraceBuilder(2)
    b.isend(0, 1, MB)
    trace = b.trace()
    trace["waits"].append({"rank": 0, "request": 0, "begin": 99, "end": None})
    assert not replay(trace, H100).complete


def test_a_message_with_an_ungraded_end_marks_the_replay_incomplete():
    """A graded send matched by a receive posted before the graded call (ungraded) completed in
    the switch; the replay cannot place it, so the replay says it is incomplete, never 0 s."""
    trace = ref.ring_all_reduce(4, MB)
    for req in trace["requests"]:
        if req["kind"] == "recv":
            req["graded"] = False
    sends = {r["id"] for r in trace["requests"] if r["kind"] == "send"}
    trace["waits"] = [w for w in trace["waits"] if w["request"] not in sends]  # never waited
    assert not replay(trace, H100).complete


def test_a_flood_of_empty_messages_costs_a_gap_each():
    """1 000 empty isends from rank 0 to rank 1, all posted at once: the port starts one per
    gap (0.1 µs on the h100x8), so the last completes 999 gaps and one α after the first."""
    b = ref.TraceBuilder(2)
    posted = []
    for tag in range(1000):
        posted += [(0, b.isend(0, 1, 0, tag)), (1, b.irecv(1, 0, 0, tag))]
    for rank, req in posted:
        b.wait(rank, req)
    assert H100.links["intra"].gap == pytest.approx(0.1e-6)
    r = replay(b.trace(), H100)
    assert r.time == pytest.approx(999 * 0.1e-6 + 5e-6)
    assert r.latency == pytest.approx(r.time)  # the gaps are latency, not bytes/β
    assert replay(b.trace(), H100, contention=False).time == pytest.approx(5e-6)


def test_the_gap_never_delays_a_message_longer_than_it():
    """A port busy for a message's bytes/β is busy past the gap already: 7 sends of 1 MB
    cost what they cost without a gap (the closed forms stay)."""
    assert MB / 450e9 > H100.links["intra"].gap
    assert replay(fan_out(), H100).time == pytest.approx(5e-6 + 7 * MB / 450e9)


@pytest.mark.parametrize(("kind", "expected"), [
    ("all_reduce", 2 * 7 * 5e-6 + 2 * 7 / 8 * GB / 450e9),
    ("reduce_scatter", 7 * 5e-6 + 7 / 8 * GB / 450e9),
    ("all_gather", 7 * (5e-6 + GB / 450e9)),
    ("all_to_all", 5e-6 + 7 / 8 * GB / 450e9),
    ("broadcast", 3 * (5e-6 + GB / 450e9)),
    ("reduce", 3 * (5e-6 + GB / 450e9)),
    ("barrier", 3 * 5e-6),
])
def test_builtin_collectives_cost_their_declared_algorithm(kind, expected):
    assert replay(ref.builtin(kind, 8, GB), H100).time == pytest.approx(expected)


def test_builtin_all_reduce_across_nodes_is_bounded_by_the_nic():
    assert close(replay(ref.builtin("all_reduce", 16, GB), TWO_NODES).time, 37.65e-3)


def test_collectives_follow_each_other_in_program_order():
    b = ref.TraceBuilder(8)
    for _ in range(3):
        b.collective("all_reduce", list(range(8)), [MB] * 8, [2 * 7 * MB // 8] * 8)
    assert replay(b.trace(), H100).time == pytest.approx(3 * 73.8888e-6, rel=1e-4)


def test_too_many_ranks_for_one_node_is_an_error():
    with pytest.raises(ModelError, match="several nodes"):
        replay(ref.ring_all_reduce(16, MB), H100)


def test_ring_and_recursive_doubling_cross_near_19_8_mb():
    s_star = 11 * 5e-6 * 450e9 / 1.25  # 14α + 1.75 S/β = 3α + 3 S/β
    below, above = int(s_star * 0.99), int(s_star * 1.01)
    assert replay(ref.ring_all_reduce(8, below), H100).time > replay(
        ref.recursive_doubling(8, below), H100).time
    assert replay(ref.ring_all_reduce(8, above), H100).time < replay(
        ref.recursive_doubling(8, above), H100).time
    assert s_star == pytest.approx(19.8e6)


def _sim_trace(body: str, world: int = 4, allowed: tuple[str, ...] = ("all_reduce",)) -> dict:
    """The switch trace of ``f(t)`` (``body`` its lines) run on ``world`` simulated ranks."""
    from cjudge.sim.runtime import run_case

    code = "import torch.distributed as dist\n\ndef f(t):\n" + "".join(
        f"    {line}\n" for line in body.strip().splitlines())
    job = {"function": "f", "output": "inplace", "allowed": list(allowed), "code": code,
           "filename": "f.py", "time_limit_s": 10.0, "output_limit_bytes": 4096}
    inputs = [{"shape": [256], "dtype": "float32", "data": [1.0] * 256}] * world
    raw = run_case(job, {"name": "c", "world_size": world, "sample": False, "params": {},
                         "inputs": inputs})
    assert all(r["state"] == "returned" for r in raw["ranks"]), raw["ranks"]
    return raw["trace"]


def test_async_collectives_posted_together_still_take_turns_on_the_links():
    """Two all_reduces posted at once (async) share every rank's ports: they cost what two
    blocking ones cost, not one (a bucketed DDP cannot hide a bucket by posting it early)."""
    together = _sim_trace("""
a = dist.all_reduce(t, async_op=True)
b = dist.all_reduce(t, async_op=True)
a.wait()
b.wait()
""")
    one_by_one = _sim_trace("dist.all_reduce(t)\ndist.all_reduce(t)")
    size = 1024 * 256
    assert replay(together, H100, size).time == pytest.approx(replay(one_by_one, H100, size).time)
    assert replay(together, H100, size, contention=False).time == pytest.approx(
        replay(one_by_one, H100, size).time / 2)


def test_a_collective_names_the_rank_it_waited_for():
    """Ranks 2 and 3 exchange a message first: the all_reduce starts when they post it, and the
    replay names the lower of the two (they post at the same modelled time)."""
    trace = _sim_trace("""
r = dist.get_rank()
if r == 2:
    dist.send(t, 3)
if r == 3:
    dist.recv(t, 2)
dist.all_reduce(t)
""", allowed=("all_reduce", "send", "recv"))
    [collective] = trace["collectives"]
    assert replay(trace, H100, 1024).last_to_post == {collective["id"]: 2}
