"""Real torch on a machine without a GPU (the CPU lane): ``torch.cuda.synchronize()``,
``torch.cuda.set_device``, ``Tensor.cuda()`` and ``Tensor.to("cuda")`` become no-ops with a
one-line note (``cuda_note``) instead of torch's "Torch not compiled with CUDA enabled". On a
machine with a GPU nothing changes."""

from __future__ import annotations

from typing import Any

import torch

from ..rank.cuda_note import Notes, is_cuda


def install(rank: int) -> None:
    """Patch this rank's torch, unless CUDA is available."""
    if torch.cuda.is_available():
        return
    notes = Notes(lambda: rank)
    to = torch.Tensor.to

    def synchronize(device: Any = None) -> None:
        notes.say("torch.cuda.synchronize()")

    def set_device(device: Any) -> None:
        notes.say("torch.cuda.set_device()")

    def cuda(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        notes.say(".cuda()")
        return self

    def to_cpu(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        if any(map(is_cuda, args)) or is_cuda(kwargs.get("device")):
            notes.say('.to("cuda")')
            args = tuple(a for a in args if not is_cuda(a))
            kwargs = {k: v for k, v in kwargs.items() if not (k == "device" and is_cuda(v))}
            if not args and not kwargs:
                return self
        return to(self, *args, **kwargs)

    torch.cuda.synchronize = synchronize
    torch.cuda.set_device = set_device
    torch.Tensor.cuda = cuda  # type: ignore[method-assign, assignment]
    torch.Tensor.to = to_cpu  # type: ignore[method-assign, assignment]
