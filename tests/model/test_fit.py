"""``bench``'s fit of α and β, the saved "this machine", and modelled vs measured."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from cjudge.bench.fit import fit_alpha_beta, modelled_vs_measured, report
from cjudge.model.topology import THIS_MACHINE, ModelError, get_topology

SIZES = [2**k for k in range(10, 27, 2)]


def line(alpha: float, beta: float) -> list[tuple[float, float]]:
    return [(s, alpha + s / beta) for s in SIZES]


def test_exact_points_give_alpha_and_beta_back():
    fit = fit_alpha_beta(line(20e-6, 2e9))
    assert fit.alpha == pytest.approx(20e-6) and fit.beta == pytest.approx(2e9)
    assert fit.rms_relative == pytest.approx(0, abs=1e-9) and fit.points == len(SIZES)


def test_relative_least_squares_with_noise():
    noisy = [(s, t * (1.1 if i % 2 else 0.9)) for i, (s, t) in enumerate(line(50e-6, 1e9))]
    fit = fit_alpha_beta(noisy)
    assert fit.alpha == pytest.approx(50e-6, rel=0.2) and fit.beta == pytest.approx(1e9, rel=0.2)
    assert 0.05 < fit.rms_relative < 0.15


def test_negative_latency_is_clamped_and_flat_times_refused():
    fit = fit_alpha_beta([(1000, 1e-6), (2000, 3e-6)])
    assert fit.alpha == 0 and fit.beta > 0
    with pytest.raises(ModelError):
        fit_alpha_beta([(1000, 1e-3), (2000, 1e-3)])
    with pytest.raises(ModelError):
        fit_alpha_beta([(1000, 1e-3)])


def _doc(alpha: float, beta: float, world: int) -> dict:
    def rows(times):
        return [{"size": s, "median_us": t * 1e6, "rank_iter_seconds": [[t * 1.5, t]] * world}
                for s, t in zip(SIZES, times, strict=True)]

    ring = [2 * (world - 1) * (alpha + s / world / beta) for s in SIZES]
    return {"config": {"backend": "gloo"}, "environment": {"world_size": world},
            "finished": "2026-01-01T00:00:00+00:00",
            "series": [{"label": "sendrecv", "rows": rows([t for _, t in line(alpha, beta)])},
                       {"label": "ring-allreduce", "rows": rows(ring)}]}


def test_report_fits_saves_this_machine_and_compares_the_ring(tmp_path):
    path = tmp_path / "this-machine.json"
    out = io.StringIO()
    report(_doc(30e-6, 3e9, 4), Console(file=out, width=200), path)
    text = out.getvalue()
    assert "fitted α = 30 µs, β = 3 GB/s" in text
    topo = get_topology(THIS_MACHINE, path)
    assert topo.links["intra"].alpha == pytest.approx(30e-6)
    assert "ring-allreduce" in text and "1.00" in text
    assert all(r["ratio"] == pytest.approx(1) for r in modelled_vs_measured(_doc(30e-6, 3e9, 4), topo))


def test_report_without_sendrecv_uses_the_saved_fit(tmp_path):
    path = tmp_path / "this-machine.json"
    report(_doc(30e-6, 3e9, 4), Console(file=io.StringIO()), path)
    doc = _doc(30e-6, 3e9, 4)
    doc["series"] = doc["series"][1:]
    out = io.StringIO()
    report(doc, Console(file=out, width=200), path)
    assert "this machine's fitted α = 30 µs" in out.getvalue()
    out = io.StringIO()
    report(doc, Console(file=out, width=200), tmp_path / "none.json")
    assert "no fitted α, β yet" in out.getvalue()
