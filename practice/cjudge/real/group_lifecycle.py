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
    saved = (dist.init_process_group, dist.destroy_process_group,
             c10d.init_process_group, c10d.destroy_process_group)
    original_init = c10d.init_process_group

    def init_process_group(*args: Any, **kwargs: Any) -> None:
        if not c10d.is_initialized():
            original_init(*args, **kwargs)

    def destroy_process_group(*args: Any, **kwargs: Any) -> None:
        pass

    dist.init_process_group = c10d.init_process_group = init_process_group
    dist.destroy_process_group = c10d.destroy_process_group = destroy_process_group
    try:
        yield
    finally:
        (dist.init_process_group, dist.destroy_process_group,
         c10d.init_process_group, c10d.destroy_process_group) = saved
