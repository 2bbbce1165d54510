"""The judge owns the process group: a learner's own init and destroy calls become no-ops."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d


@contextmanager
def group_owned_by_judge() -> Iterator[None]:
    """While inside, ``init_process_group`` does nothing once a group exists and
    ``destroy_process_group`` does nothing at all (a torchrun-style file calls both itself);
    the originals are restored on the way out."""
    saved = {m: (m.init_process_group, m.destroy_process_group) for m in (dist, c10d)}
    original_init = saved[c10d][0]

    def init_process_group(*args: Any, **kwargs: Any) -> None:
        if not c10d.is_initialized():
            original_init(*args, **kwargs)

    for module in saved:
        module.init_process_group = init_process_group
        module.destroy_process_group = lambda *args, **kwargs: None
    try:
        yield
    finally:
        for module, (init, destroy) in saved.items():
            module.init_process_group, module.destroy_process_group = init, destroy
