"""What a rank holds of the judge's symmetric memory (``switch.symm``): a handle, as
``torch.distributed._symmetric_memory.rendezvous`` gives one, whose buffers live in the switch.

``symm.read(peer, offset, numel)`` loads elements of rank ``peer``'s buffer into a new tensor,
``symm.write(peer, tensor, offset)`` stores a tensor's elements into it (``peer`` may be the
rank itself), ``symm.barrier()`` waits until every rank has reached it (the world's collective
``symm_barrier``): what orders one rank's accesses before another's. Each load or store is one
request to the switch, made at the learner's line. Runtime-agnostic: the caller passes its
tensors' plain-data converters.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, cast

from ..contract.protocol import TensorData, bilingual
from ..switch.core import SwitchError
from ..switch.functions import pack
from ..switch.reduce import values_of
from ..switch.symm import BARRIER, LOAD, STORE


class SymmetricMemory:
    """One rank's handle on every rank's symmetric buffer of ``numel`` elements of ``dtype``."""

    def __init__(self, value: Mapping[str, object], port: Any, tensor: Callable[[TensorData], Any],
                 to_data: Callable[[Any], TensorData | None],
                 line: Callable[[], int | None]) -> None:
        self._handle, self._port = value["handle"], port
        self._tensor, self._to_data, self._line = tensor, to_data, line
        self.numel, self.dtype = _int(value.get("numel", 0), "numel"), str(value.get("dtype", "float32"))
        self.rank, self.world_size = port.rank, port.world

    def __repr__(self) -> str:
        return (f"SymmetricMemory(rank={self.rank}, world_size={self.world_size}, "
                f"numel={self.numel}, dtype={self.dtype})")

    def _request(self, args: list[int], payload: bytes, shape: list[int]) -> bytes:
        try:
            return cast(bytes, self._port.compute(self._handle, payload, self.dtype, shape, args,
                                                  self._line()))
        except (SwitchError, RuntimeError) as exc:  # the switch's refusal, on either runtime
            raise bilingual(ValueError, str(exc), getattr(exc, "zh", None)) from None

    def read(self, peer: int, offset: int = 0, numel: int | None = None) -> Any:
        """``numel`` elements (default: to the end) of rank ``peer``'s buffer from ``offset``,
        as a new 1-D tensor."""
        count = self.numel - offset if numel is None else numel
        data = values_of(self._request([LOAD, _int(peer, "peer"), _int(offset, "offset"),
                                        _int(count, "numel")], b"", [0]), self.dtype) or []
        return self._tensor(TensorData(shape=[len(data)], dtype=self.dtype, data=data))

    def write(self, peer: int, src: Any, offset: int = 0) -> None:
        """Store ``src``'s elements (a tensor of the buffer's dtype) into rank ``peer``'s buffer
        from ``offset``."""
        data = self._to_data(src)
        if data is None:
            raise bilingual(TypeError, "symm.write(peer, src, offset): src must be a tensor",
                            "symm.write(peer, src, offset)：src 必须是张量")
        if data["dtype"] != self.dtype:
            raise bilingual(TypeError, f"symm.write: the buffers hold {self.dtype}, not "
                            f"{data['dtype']}", f"symm.write：缓冲区的类型是 {self.dtype}，不是 "
                            f"{data['dtype']}")
        count = len(data["data"])
        self._request([STORE, _int(peer, "peer"), _int(offset, "offset"), count],
                      pack(data["data"], self.dtype), [count])

    def barrier(self) -> None:
        """Every rank's accesses before it are done before any rank's after it."""
        try:
            self._port.wait(self._port.post_collective(0, BARRIER, b"", self.dtype,
                                                       line=self._line(), api="symm.barrier"))
        except (SwitchError, RuntimeError) as exc:
            raise bilingual(ValueError, str(exc), getattr(exc, "zh", None)) from None


def _int(value: Any, what: str) -> int:
    """An integer argument: an int, or anything with ``__index__`` (an integer tensor)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise bilingual(TypeError, f"symm: {what} must be an integer",
                        f"symm：{what} 必须是整数") from None
    if not -(1 << 31) <= number < 1 << 31:
        raise bilingual(ValueError, f"symm: {what} {number} is out of range",
                        f"symm：{what} {number} 超出范围")
    return number
