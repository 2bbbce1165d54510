"""The simulated ``torch.distributed`` answers to torch's other names of a call (real torch 2.13
has them all), and the switch records each under its one name, as on the real runtime."""

from __future__ import annotations

from .helpers import data, outputs, run


def test_torchs_other_names_of_a_fused_call_work_and_are_recorded_under_one_name():
    raw = run("""
        import torch
        import torch.distributed as dist
        def f(t):
            n = dist.get_world_size()
            mine, two = torch.empty(2), torch.empty(2)
            dist.reduce_scatter_single(mine, t)
            dist._reduce_scatter_base(two, t)
            every, again = torch.empty(2 * n), torch.empty(2 * n)
            dist.all_gather_single(every, mine)
            dist._all_gather_base(again, two)
            return torch.cat([every, again])
    """, [data([1.0, 2.0, 3.0, 4.0]), data([10.0, 20.0, 30.0, 40.0])])
    assert outputs(raw) == [[11.0, 22.0, 33.0, 44.0] * 2] * 2
    assert [(r["api"], r["line"]) for r in raw["trace"]["requests"] if r["rank"] == 0] == [
        ("reduce_scatter_tensor", 7), ("reduce_scatter_tensor", 8),
        ("all_gather_into_tensor", 10), ("all_gather_into_tensor", 11)]
