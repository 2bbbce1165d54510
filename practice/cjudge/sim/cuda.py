"""The simulation's ``torch.cuda``: no GPU, and real code's synchronisation a no-op with a note
(``cuda_note``); ``Tensor.cuda`` and ``Tensor.to("cuda")`` are the tensor's own."""

from __future__ import annotations

import types
from typing import Any

from ..rank.cuda_note import Notes
from . import context


def _rank() -> int:
    return context.current().rank if context.in_rank() else 0


#: the case's notes (:func:`module` starts them afresh: once per case, the ranks share them and
#: rank 0 prints)
NOTES = Notes(_rank)


def say(call: str) -> None:
    """``call``'s note, once per case (on rank 0)."""
    NOTES.say(call)


def module(missing: Any) -> types.ModuleType:
    """A ``torch.cuda`` module: ``synchronize`` and ``set_device`` do nothing (with the note),
    ``is_available()`` is False, ``device_count()`` is 0; any other name raises ``missing``'s
    error. The case's notes start afresh."""
    global NOTES
    NOTES = Notes(_rank)
    cuda = types.ModuleType("torch.cuda", "Simulated torch.cuda: no GPU on this lane.")

    def synchronize(device: Any = None) -> None:
        say("torch.cuda.synchronize()")

    def set_device(device: Any) -> None:
        say("torch.cuda.set_device()")

    vars(cuda).update({"synchronize": synchronize, "set_device": set_device,
                       "is_available": lambda: False, "device_count": lambda: 0,
                       "__getattr__": missing})
    return cuda
