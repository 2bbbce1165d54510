"""Each case's own seed, from the exercise's seed and the case's name."""

from __future__ import annotations

import random


def case_seed(seed: int, case_name: str) -> int:
    """A per-case seed: changing the exercise seed (a secret one on the server) changes every case."""
    return random.Random(f"{seed}:{case_name}").getrandbits(63)
