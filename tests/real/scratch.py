"""A scratch copy of the ring all-reduce exercise with cases of the sizes a test or a benchmark
asks for (a small sample first, as every exercise has)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from cjudge.exercise.exercises import Exercise, default_root, load_exercise

SAMPLE = '[[cases]]\nname = "sample"\nworld_size = 2\nnumel = 4\ndtype = "float32"\nsample = true\n'


def ring_with_cases(folder: Path, sizes: list[tuple[int, int]],
                    time_limit_s: float = 120.0) -> Exercise:
    """``folder``/ring-allreduce with the reference's cases: ``(world_size, numel)`` float32
    each, modelled on none of them (only correctness, bytes and messages are judged)."""
    target = folder / "ring-allreduce"
    shutil.copytree(default_root() / "ring-allreduce", target)
    toml = (target / "exercise.toml").read_text(encoding="utf-8")
    head, rest = toml.split("[[cases]]", 1)
    model = re.sub(r"^cases = \[.*\]$", "cases = []", rest[rest.index("[model]"):], flags=re.M)
    head = re.sub(r"^time_limit_s = .*$", f"time_limit_s = {time_limit_s}", head, flags=re.M)
    cases = "".join(f'\n[[cases]]\nname = "{n}x{numel}"\nworld_size = {n}\nnumel = {numel}\n'
                    'dtype = "float32"\n' for n, numel in sizes)
    (target / "exercise.toml").write_text(f"{head}{SAMPLE}{cases}\n{model}", encoding="utf-8")
    return load_exercise(target)
