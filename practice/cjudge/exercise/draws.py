"""Whether a file's verdict depends on the draw: the file judged on the simulated runtime under
more seeds than the exercise's own, as the server's fresh inputs per submission would judge it."""

from __future__ import annotations

from .exercises import Exercise

#: how many seeds after the exercise's own every file is judged under (``check``, the tests)
DRAWS = 12


def draw_seeds(ex: Exercise, count: int = DRAWS) -> list[int]:
    """``count`` seeds after the exercise's own (the one ``check`` grades on real torch)."""
    return [ex.seed + k for k in range(1, count + 1)]


def meets(want: str, verdict: str) -> bool:
    """Whether ``verdict`` is what is wanted: a verdict's code, or ``"not accepted"``."""
    return verdict != "accepted" if want == "not accepted" else verdict == want


def other_draws(ex: Exercise, code: str, filename: str, want: str,
                seeds: list[int]) -> list[tuple[int, str]]:
    """(seed, verdict) of each draw whose verdict on the simulated runtime is not ``want``.
    Only the verdict counts, so each draw stops at its first failing case."""
    from ..grading.submission import judge_code  # not at import: the CLI reads DRAWS for its help
    from ..sim.runtime import run_case

    verdicts = ((seed, judge_code(ex, code, filename, run_case, "sim", seed=seed)["verdict"])
                for seed in seeds)
    return [(seed, verdict) for seed, verdict in verdicts if not meets(want, verdict)]
