"""Random numbers: ``torch.Generator``, ``manual_seed`` and the default generator of each rank.

The numbers are not torch's: only seeding and reproducibility behave the same.
"""

from __future__ import annotations

import random
from contextvars import ContextVar


class Generator:
    """``torch.Generator``: a seeded source of random numbers."""

    def __init__(self, device: str = "cpu") -> None:
        self._seed = 67280421310721
        self._random = random.Random(self._seed)
        self.device = device

    def manual_seed(self, seed: int) -> Generator:
        """Reseed; returns the generator, as torch does."""
        self._seed = int(seed)
        self._random.seed(self._seed)
        return self

    def initial_seed(self) -> int:
        """The last seed set."""
        return self._seed

    def seed(self) -> int:
        """Reseed from the operating system's randomness; returns the new seed."""
        self.manual_seed(random.SystemRandom().getrandbits(63))
        return self._seed

    @property
    def random(self) -> random.Random:
        """The underlying Python generator."""
        return self._random


_GLOBAL = Generator()
_DEFAULT: ContextVar[Generator | None] = ContextVar("sim_default_generator", default=None)


def default_generator() -> Generator:
    """The generator ``torch.manual_seed`` seeds: one per rank, or a global one outside ranks."""
    return _DEFAULT.get() or _GLOBAL


def set_default_generator(gen: Generator) -> None:
    """Give the current context (a rank) its own default generator."""
    _DEFAULT.set(gen)


def manual_seed(seed: int) -> Generator:
    """``torch.manual_seed``: reseed the current rank's default generator."""
    return default_generator().manual_seed(seed)


def initial_seed() -> int:
    """``torch.initial_seed``."""
    return default_generator().initial_seed()


def seed() -> int:
    """``torch.seed``."""
    return default_generator().seed()
