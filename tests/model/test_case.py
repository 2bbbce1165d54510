"""A case's ``model`` dict, the time bound and the ``too_slow`` messages."""

from __future__ import annotations

import json

import pytest

from cjudge.contract.verdicts import Verdict, title
from cjudge.model import reference as ref
from cjudge.model.bound import NAMES, Bound
from cjudge.model.case import ModelSpec, model_case, sweep
from cjudge.model.topology import ModelError, get_topology

RING_BOUND = "2*(n-1)*alpha + 2*(n-1)/n*S/beta"
RD_BOUND = "log2(n)*(alpha + S/beta)"


def spec(**table) -> ModelSpec:
    return ModelSpec.from_table({"sizes": ["1MB"], **table}, "all_reduce")


def test_model_dict_per_size():
    out = model_case(ref.ring_all_reduce(8, 4000), 4000,
                     ModelSpec.from_table({"sizes": ["4KiB", "1MB", "1GB"],
                                           "time_bound": RING_BOUND}, "all_reduce"))
    assert not out.too_slow and out.message == ""
    model = out.model
    json.dumps(model)  # plain JSON
    assert model["topology"]["name"] == "h100x8"
    assert model["topology"]["intra"] == {"alpha_us": 5.0, "beta_GBps": 450.0, "gap_us": 0.1}
    assert "4000 B" in model["scaled"]["en"] and "4000 B" in model["scaled"]["zh"]
    one_gb = model["sizes"][2]
    assert one_gb["size"] == 10**9
    assert one_gb["time_s"] == pytest.approx(3.9589e-3, rel=1e-3)
    assert one_gb["bound_s"] == pytest.approx(one_gb["time_s"])
    assert one_gb["algbw"] == pytest.approx(1e9 / one_gb["time_s"] / 1e9)
    assert one_gb["busbw"] == pytest.approx(one_gb["algbw"] * 14 / 8)
    assert one_gb["steps"] == 14
    assert one_gb["link_bytes"] == {"intra": pytest.approx(14e9)}
    assert model["bound"] == {"formula": RING_BOUND, "tolerance": 0.05, "judged": True}


def test_ring_under_a_recursive_doubling_bound_is_too_slow_by_latency():
    out = model_case(ref.ring_all_reduce(8, 4000), 4000, spec(time_bound=RD_BOUND))
    assert out.too_slow
    assert "14 steps × 5 µs = 70 µs of your 73.9 µs" in out.message
    assert "Latency dominates" in out.message
    # the bound with its numbers at n = 8, S = 1 MB, and the machine as the case uses it
    assert "241 % over the bound 3 × (5 µs + 2.22 µs) = 21.7 µs (tolerance 5 %)" in out.message
    assert "Too slow with 8 ranks in one node of h100x8 (α = 5 µs, β = 450 GB/s)" in out.message
    assert "14 步 × 5 µs = 70 µs" in out.message_zh and "延迟占主导" in out.message_zh
    assert "上限 3 × (5 µs + 2.22 µs) = 21.7 µs（容差 5 %）多 241 %" in out.message_zh
    assert "h100x8 的一个节点内的 8 个 rank" in out.message_zh
    # the generic advice names no algorithm the exercise may forbid
    assert "tree" not in out.message and "one message" not in out.message
    assert out.message.endswith("Fewer steps one after another would help: transfers that do "
                                "not depend on each other can run at the same time.")


def test_the_bound_is_shown_with_its_numbers_at_the_case():
    bound = Bound("2*(n-1)*alpha + 2*(n-1)/n*S/beta", (*NAMES, "c"))
    at = {**get_topology("h100x8").params(), "n": 4, "S": 4096, "c": 0.0}
    assert bound.shown(**at) == "6 × 5 µs + 1.5 × 9.1 ns = 30 µs"
    assert bound.steps(**at) == 6
    small = Bound("(floor(log2(n)) + 2*(ceil(log2(n)) - floor(log2(n))))*(alpha + S/beta)")
    assert small.shown(**{**at, "n": 6}) == "4 × (5 µs + 9.1 ns) = 20 µs"
    assert Bound("min(n-1, 1)*alpha + S/beta").shown(**at) == "5 µs + 9.1 ns = 5.01 µs"


def test_an_exercise_may_give_its_own_advice():
    advice = {"en": "Send microbatch k while you compute k+1.", "zh": "计算第 k+1 个时发送第 k 个。"}
    out = model_case(ref.ring_all_reduce(8, 4000), 4000, spec(time_bound=RD_BOUND, advice=advice))
    assert "Latency dominates: 14 steps" in out.message and "Fewer steps" not in out.message
    assert out.message.endswith(" Send microbatch k while you compute k+1.")
    assert out.message_zh.endswith("。计算第 k+1 个时发送第 k 个。")


def test_bandwidth_dominated_message():
    """Recursive doubling at 1 GB against the ring's bound: 3 steps, but 3·S/β."""
    out = model_case(ref.recursive_doubling(8, 4000), 4000,
                     spec(sizes=["1GB"], time_bound=RING_BOUND))
    assert out.too_slow
    assert "Bandwidth dominates: 6.67 ms of your 6.68 ms" in out.message
    assert "带宽占主导" in out.message_zh


def test_tolerance_lets_a_near_miss_pass():
    trace = ref.ring_all_reduce(8, 4000)
    tight = "0.97*(2*(n-1)*alpha + 2*(n-1)/n*S/beta)"
    assert not model_case(trace, 4000, spec(time_bound=tight, tolerance=0.05)).too_slow
    assert model_case(trace, 4000, spec(time_bound=tight, tolerance=0.01)).too_slow


def test_the_worst_size_is_reported():
    out = model_case(ref.ring_all_reduce(8, 4000), 4000,
                     spec(sizes=["4KiB", "1GB"], time_bound=RD_BOUND))
    assert out.worst["size"] == 4096 and "S = 4 KiB" in out.message


def test_no_bound_never_too_slow():
    out = model_case(ref.ring_all_reduce(8, 4000), 4000, spec())
    assert not out.too_slow and out.model["bound"] is None
    assert out.model["sizes"][0]["bound_s"] is None


def test_two_node_bound_names():
    out = model_case(ref.hierarchical_all_reduce(16, 16000), 16000, ModelSpec.from_table(
        {"topology": "h100x8x2", "sizes": ["1GB"],
         "time_bound": "2*(g-1)*(alpha + S/g/beta) + 2*(alpha_inter + S/g/2/beta_inter)"}))
    assert not out.too_slow
    assert out.model["sizes"][0]["link_bytes"]["inter"] == pytest.approx(2e9)


@pytest.mark.parametrize("table", [
    {"topology": "dgx9000"}, {"sizes": []}, {"sizes": ["1 parsec"]}, {"tolerance": -1},
    {"tolerance": True}, {"contention": "yes"}, {"time_bound": "__import__('os')"},
    {"colour": "blue"}, {"advice": "overlap"}, {"advice": {"en": "overlap"}},
    {"collective": 3}, {"floor": {"time": 1, "bytes": "S"}}, {"time_bound": ["n"]},
])
def test_bad_model_tables_are_refused(table):
    with pytest.raises(ModelError):
        ModelSpec.from_table(table)


@pytest.mark.parametrize("formula", [
    "__import__('os').system('true')", "alpha.__class__", "open('x')", "[1][0]", "lambda: 1",
    "n if n else S", "x + 1", "9**9**9", "S(1)", "'a' * 3", "True + n",
])
def test_bounds_refuse_anything_but_arithmetic(formula):
    with pytest.raises(ModelError):
        Bound(formula)(n=8, S=1e6, alpha=5e-6, beta=450e9, alpha_inter=5e-6, beta_inter=50e9, g=8)


def test_bound_arithmetic():
    b = Bound("ceil(log2(n)) * (alpha + S/beta) + max(0, -1) + 7 % 4 - 3")
    assert b(n=8, S=1e6, alpha=5e-6, beta=450e9) == pytest.approx(21.667e-6, rel=1e-4)


def test_sweep_rows_are_in_size_order():
    rows = sweep(ref.ring_all_reduce(8, 8000), get_topology("h100x8"), [10**3, 10**6], 8000,
                 "all_reduce").rows
    assert [r["size"] for r in rows] == [10**3, 10**6]
    assert rows[0]["time_s"] < rows[1]["time_s"]


def test_too_slow_verdict_and_titles():
    assert Verdict.TOO_SLOW == "too_slow"
    assert title("too_slow") == "Too slow" and title("too_slow", "zh") == "太慢"


def test_crossing_of_ring_and_recursive_doubling_at_8_ranks():
    from cjudge.model.case import crossing

    s = crossing((ref.ring_all_reduce(8, 8192), 8192), (ref.recursive_doubling(8, 8192), 8192),
                 get_topology("h100x8"), 1e3, 1e9)
    assert s == pytest.approx(19.8e6, rel=1e-3)
    assert crossing((ref.ring_all_reduce(8, 8192), 8192), (ref.recursive_doubling(8, 8192), 8192),
                    get_topology("h100x8"), 1e3, 1e6) is None


def test_the_bound_judges_only_the_declared_cases():
    s = spec(time_bound=RD_BOUND, cases=["8-ranks"])
    trace = ref.ring_all_reduce(8, 4000)
    assert model_case(trace, 4000, s, "8-ranks").too_slow
    skipped = model_case(trace, 4000, s, "2-ranks-odd")  # not listed: not modelled, says so
    assert not skipped.too_slow and skipped.complete and skipped.model["modelled"] is False
    assert skipped.model["sizes"] == [] and "2-ranks-odd" in skipped.model["note"]["en"]
    assert "不建模" in skipped.model["note"]["zh"]
    with pytest.raises(ModelError):
        spec(cases="8-ranks")
