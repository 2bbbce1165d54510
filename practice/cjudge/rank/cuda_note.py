"""CUDA calls on the CPU lane: real code's ``torch.cuda.synchronize()``, ``.cuda()`` and
``.to("cuda")`` do nothing where every rank runs on the CPU, and the rank's output says so once.

Both runtimes use it: the simulation's ``torch.cuda`` (``sim.cuda``) and the real runtime's
patches of torch on a machine without a GPU (``real.cuda_noop``). The note goes to rank 0's
printed output (the ranks run the same code: one line, not one per rank), once per kind of call.
"""

from __future__ import annotations

from collections.abc import Callable


def is_cuda(device: object) -> bool:
    """Whether ``device`` names a CUDA device (``"cuda"``, ``"cuda:1"``, ``torch.device``)."""
    return not isinstance(device, (int, bool)) and device is not None and \
        str(device).split(":")[0] == "cuda"


def note_line(call: str) -> str:
    """The one-line note for ``call``, in English and Chinese."""
    return (f"note: {call} does nothing here: this judge runs every rank on the CPU, and tensors "
            f"stay there / 注意：{call} 在这里不做任何事：评测机在 CPU 上运行每个 rank，张量留在 CPU 上")


class Notes:
    """The notes one rank has printed; ``rank`` says which rank runs now."""

    def __init__(self, rank: Callable[[], int]) -> None:
        self._rank = rank
        self._said: set[str] = set()

    def say(self, call: str) -> None:
        """Print ``call``'s note, on rank 0, the first time only."""
        if call not in self._said and self._rank() == 0:
            self._said.add(call)
            print(note_line(call))
