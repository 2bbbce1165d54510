"""The side channel from the ranks to whoever watches them: keys in torch's TCPStore.

Each rank counts the phases it has finished (``phase/<r>``); rank 0 posts the environment and
one row per step; a failing rank posts its error. The watcher polls: no rank ever waits on it.
The store is the launcher's own (ours, or torchrun's agent store), so it outlives the ranks.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any, TypedDict

import torch.distributed as dist

PREFIX = "cjudge-bench"


class RankFailure(TypedDict):
    """A failing rank's error, as it posts it."""

    rank: int
    error: str  # the traceback


def run_id() -> str:
    """Tells apart the runs that share one store (torchrun's restarts); ``local/0`` for ours."""
    return (f"{os.environ.get('TORCHELASTIC_RUN_ID', 'local')}/"
            f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}")


class Channel:
    """Rank and watcher ends of the side channel over one store."""

    def __init__(self, store: dist.Store, run: str):
        self.store = dist.PrefixStore(f"{PREFIX}/{run}/", store)

    @classmethod
    def connect(cls, host: str, port: int, timeout_s: float = 300) -> Channel:
        """A client of the store at ``host:port``, for this run."""
        store = dist.TCPStore(host, port, is_master=False, timeout=timedelta(seconds=timeout_s))
        return cls(store, run_id())

    def advance(self, rank: int) -> None:
        """This rank finished one more phase."""
        self.store.add(f"phase/{rank}", 1)

    def phases(self, world: int) -> list[int]:
        """Phases each rank has finished."""
        return [self.store.add(f"phase/{rank}", 0) for rank in range(world)]

    def put(self, key: str, value: Any) -> None:
        """Post a JSON value."""
        self.store.set(key, json.dumps(value))

    def get(self, key: str) -> Any:
        """A posted JSON value, or None if it is not there (yet)."""
        if not self.store.check([key]):
            return None
        return json.loads(self.store.get(key))

    def fail(self, rank: int, text: str) -> None:
        """Post this rank's error; errors are numbered in the order they arrive."""
        self.put(f"error/{self.store.add('errors', 1)}", RankFailure(rank=rank, error=text))

    def errors(self) -> list[RankFailure]:
        """Posted errors, first first."""
        posted = self.store.add("errors", 0)
        return [e for e in (self.get(f"error/{i}") for i in range(1, posted + 1)) if e is not None]
