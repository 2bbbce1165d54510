"""A bench run's settings, and its plan: the steps (series × size) every rank runs in order."""

from __future__ import annotations

from dataclasses import dataclass

from ..contract.units import format_size

#: nccl-tests' type names
DTYPES = ("float", "double", "half", "bfloat16", "int32", "int64")
DTYPE_ALIASES = {"float32": "float", "float64": "double", "float16": "half", "bf16": "bfloat16"}
#: nccl-tests' -a values 0..3, by name
AGGREGATIONS = ("rank0", "avg", "min", "max")
#: torch's built-ins that ``bench`` sweeps, in nccl-tests' order
BUILTINS = ("all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce",
            "sendrecv")
#: built-ins that need more than one rank (torch has no send to oneself)
MIN_WORLD = {"sendrecv": 2}
#: what a rank does for each step, in order; it reports each phase as done
PHASES = ("correctness check", "warm-up", "timed iterations")


@dataclass(frozen=True)
class LearnerSpec:
    """A learner's implementation of an exercise and the built-in it replaces."""

    exercise: str  # the exercise id, also the series' label
    function: str  # the function the learner's file defines
    file: str  # the learner's file
    collective: str  # the built-in it is compared with (a name in BUILTINS)
    output: str = "inplace"  # exercise.toml's output: the argument afterwards, or the return
    arguments: tuple[str, ...] = ()  # exercise.toml's arguments after the tensor
    layout: str = "flat"  # exercise.toml's bench_result: "flat" or "transposed"
    #: exercise.toml's bench_scale: the case parameters scaled to each size, when the call takes
    #: the grader's inputs rather than the built-in's tensor (``learners.case_series``)
    scale: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchConfig:
    """Everything a rank needs to run the same steps as every other rank."""

    collectives: tuple[str, ...]  # built-ins to sweep (in exercise mode: the one compared with)
    learner: LearnerSpec | None
    sizes: tuple[int, ...]  # requested sizes in bytes
    iters: int
    warmup: int
    check: bool
    aggregate: str  # one of AGGREGATIONS
    dtype: str  # one of DTYPES
    root: int
    timeout_s: float  # 0: no hang timeout
    backend: str  # "gloo" or "nccl"


@dataclass(frozen=True)
class Step:
    """One series at one size: a correctness check, warm-up, then timed iterations."""

    series: str
    nbytes: int

    @property
    def label(self) -> str:
        """E.g. ``all_reduce 64 MiB``."""
        return f"{self.series} {format_size(self.nbytes)}"


def runnable(cfg: BenchConfig, world: int) -> tuple[str, ...]:
    """The configured built-ins that can run with ``world`` ranks."""
    return tuple(c for c in cfg.collectives if world >= MIN_WORLD.get(c, 1))


def plan(cfg: BenchConfig, world: int) -> list[Step]:
    """The steps in order: each built-in over all sizes, or per size the built-in then the learner.

    Alternating per size in exercise mode makes both series see the same machine conditions.
    """
    if cfg.learner is not None:
        series = (cfg.learner.collective, cfg.learner.exercise)
        return [Step(s, size) for size in cfg.sizes for s in series]
    return [Step(c, size) for c in runnable(cfg, world) for size in cfg.sizes]
