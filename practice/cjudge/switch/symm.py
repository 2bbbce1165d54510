"""Symmetric memory: a buffer on every rank that every rank may load from and store into,
modelled on ``torch.distributed._symmetric_memory`` (a rendezvoused buffer, ``get_buffer`` of a
peer, ``barrier``), kept by the switch.

A grader hands it as the judge's function ``{"fn": "symm", "params": {"numel": N, "dtype": d}}``:
every rank gets a buffer of N elements of d, zero at first. A load or a store is one ``compute``
request (``args`` [op, peer, offset, count]; a store's elements are its payload), done at once in
the switch's order. A barrier is a collective of the world, kind ``symm_barrier`` (never
refused: its signal pads are the judge's); the process group's ``barrier`` orders accesses too.

**Races, found the same on every runtime.** A rank's accesses are ordered after another rank's
only by a barrier between them: an access made after the rank posted ``hi`` barriers and waited
for ``lo`` of them happens after every access another rank made before posting its ``lo``-th
(``hi_b < lo_a``). Two accesses of one element by different ranks, at least one a store, that
are not so ordered race; whichever the switch saw first, the pair is the same, so the case's
first race (:func:`Memory.race`, the least by rank, owner and element) does not depend on the
interleaving. A load sees the latest store that is ordered before it or is the rank's own, never
a racing one (zero when there is none): its value does not depend on the interleaving either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from .functions import FnParams, FunctionError

#: a load's and a store's op code in a request's ``args[0]``
LOAD, STORE = 0, 1
#: the kinds of request the trace records for them, and for a barrier (a collective's)
KINDS = {LOAD: "symm_read", STORE: "symm_write"}
BARRIER = "symm_barrier"
#: elements one rank's buffer may hold
MAX_ELEMENTS = 1 << 16


class Race(TypedDict):
    """Two accesses of one element of ``owner``'s buffer, not ordered by a barrier: a load by
    ``reader`` (``write``: None) or a store by ``first``, and a store by ``writer``."""

    owner: int
    element: int
    writer: int
    write_line: int | None
    reader: NotRequired[int]
    read_line: NotRequired[int | None]
    first: NotRequired[int]
    first_line: NotRequired[int | None]


@dataclass
class _Element:
    """One element's stores (rank, hi, value, line), in the switch's order, and each rank's
    latest load (hi, line)."""

    stores: list[tuple[int, int, Any, int | None]] = field(default_factory=list)
    loads: dict[int, tuple[int, int | None]] = field(default_factory=dict)


def _key(race: Race) -> tuple[Any, ...]:
    """The order in which races are reported: loads first, by reader, owner, element."""
    return ("first" in race, race.get("reader", race.get("first")), race["owner"],
            race["element"], race["writer"], race.get("read_line") or 0, race["write_line"] or 0)


@dataclass
class Memory:
    """Every rank's symmetric buffer: ``world`` buffers of ``numel`` elements of ``dtype``."""

    world: int
    numel: int
    dtype: str
    _race: Race | None = None

    def __post_init__(self) -> None:
        self._elements: list[list[_Element]] = [[_Element() for _ in range(self.numel)]
                                                for _ in range(self.world)]

    def check(self, args: list[int] | None, dtype: str, count: int) -> tuple[int, int, int]:
        """(op, peer, offset) of a request (:func:`checked`)."""
        return checked(self.world, self.numel, self.dtype, args, dtype, count)

    def load(self, rank: int, owner: int, offset: int, count: int, lo: int, hi: int,
             line: int | None) -> list[Any]:
        """``count`` elements of ``owner``'s buffer from ``offset``, as rank ``rank`` sees them
        after posting ``hi`` barriers and waiting for ``lo``."""
        out = []
        for i in range(offset, offset + count):
            element = self._elements[owner][i]
            seen: Any = 0
            for writer, w_hi, value, w_line in element.stores:
                if writer == rank or w_hi < lo:
                    seen = value
                else:
                    self._found(Race(owner=owner, element=i, writer=writer, write_line=w_line,
                                     reader=rank, read_line=line))
            element.loads[rank] = (hi, line)
            out.append(seen)
        return out

    def store(self, rank: int, owner: int, offset: int, values: list[Any], lo: int, hi: int,
              line: int | None) -> None:
        """Rank ``rank`` stores ``values`` into ``owner``'s buffer from ``offset``."""
        for i, value in enumerate(values, start=offset):
            element = self._elements[owner][i]
            for reader, (r_hi, r_line) in element.loads.items():
                if reader != rank and r_hi >= lo:
                    self._found(Race(owner=owner, element=i, writer=rank, write_line=line,
                                     reader=reader, read_line=r_line))
            for writer, w_hi, _, w_line in element.stores:
                if writer != rank and w_hi >= lo:
                    a, b = sorted(((writer, w_line), (rank, line)), key=lambda s: s[0])
                    self._found(Race(owner=owner, element=i, first=a[0], first_line=a[1],
                                     writer=b[0], write_line=b[1]))
            element.stores.append((rank, hi, value, line))

    def _found(self, race: Race) -> None:
        if self._race is None or _key(race) < _key(self._race):
            self._race = race

    def race(self) -> Race | None:
        """The case's first race (see the module's docstring), if any."""
        return self._race


def checked(world: int, numel: int, held: str, args: list[int] | None, dtype: str,
            count: int) -> tuple[int, int, int]:
    """(op, peer, offset) of a load or store of ``count`` elements of ``dtype`` on ``world``
    buffers of ``numel`` elements of ``held``, or :class:`FunctionError` naming what is
    wrong."""
    if args is None or len(args) != 4 or args[0] not in KINDS:
        raise FunctionError("malformed symmetric-memory call", "对称内存调用格式错误")
    op, peer, offset, wanted = args
    if not 0 <= peer < world:
        raise FunctionError(f"symm: there is no rank {peer} (ranks are 0..{world - 1})",
                            f"symm：没有 rank {peer}（rank 的范围是 0..{world - 1}）")
    if dtype != held:
        raise FunctionError(f"symm: the buffers hold {held}, not {dtype}",
                            f"symm：缓冲区的类型是 {held}，不是 {dtype}")
    if op == STORE and wanted != count:
        raise FunctionError("malformed symmetric-memory call", "对称内存调用格式错误")
    if offset < 0 or wanted < 0 or offset + wanted > numel:
        raise FunctionError(
            f"symm: elements {offset}..{offset + wanted - 1} are outside the buffer of "
            f"{numel} elements", f"symm：元素 {offset}..{offset + wanted - 1} 超出了 "
            f"{numel} 个元素的缓冲区")
    return op, peer, offset


def buffer_of(params: FnParams, most: int | None = MAX_ELEMENTS) -> tuple[int, str]:
    """The (elements, dtype) of each rank's buffer a grader's ``symm`` params describe, at most
    ``most`` elements (None: any number, where the buffers are real shared memory);
    :class:`FunctionError` if they cannot be."""
    numel, dtype = params.get("numel"), params.get("dtype", "float32")
    if isinstance(numel, bool) or not isinstance(numel, int) or numel < 0 or (
            most is not None and numel > most):
        raise FunctionError(f"symm: a buffer holds 0..{most} elements",
                            f"symm：缓冲区可容纳 0..{most} 个元素")
    return numel, str(dtype)


def make(world: int, params: FnParams) -> Memory:
    """The buffers a grader's ``symm`` params describe (:func:`buffer_of`)."""
    return Memory(world, *buffer_of(params))


def _line(line: int | None) -> str:
    return f" at line {line}" if line is not None else ""


def _line_zh(line: int | None) -> str:
    return f"在第 {line} 行" if line is not None else ""


def explain(race: Race) -> tuple[str, str]:
    """A race as a wrong answer's message, in English and Chinese."""
    owner, i, writer = race["owner"], race["element"], race["writer"]
    advice = ("; only a barrier orders one rank's accesses before another's: call "
              "symm.barrier() on every rank between them")
    advice_zh = ("；只有 barrier 能让一个 rank 的访问排在另一个 rank 之前：请在两者之间让每个 rank "
                 "调用 symm.barrier()")
    if "reader" in race:
        reader = race["reader"]
        whose = "its own" if reader == owner else f"rank {owner}'s"
        whose_zh = "自己的" if reader == owner else f" rank {owner} 的"
        return (f"rank {reader} read element {i} of {whose} symmetric buffer"
                f"{_line(race.get('read_line'))} before rank {writer} wrote it"
                f"{_line(race['write_line'])}: nothing orders the write before the read{advice}",
                f"rank {reader} {_line_zh(race.get('read_line'))}读取了{whose_zh}对称缓冲区的第 "
                f"{i} 个元素，而 rank {writer} {_line_zh(race['write_line'])}对它的写入未必在此之前"
                f"完成：没有任何同步保证写在读之前{advice_zh}")
    first = race["first"]
    return (f"ranks {first} and {writer} both wrote element {i} of rank {owner}'s symmetric "
            f"buffer (lines {race.get('first_line')} and {race['write_line']}) with no barrier "
            f"between the writes{advice}",
            f"rank {first} 和 rank {writer} 都写入了 rank {owner} 对称缓冲区的第 {i} 个元素"
            f"（第 {race.get('first_line')} 行和第 {race['write_line']} 行），两次写入之间没有 "
            f"barrier{advice_zh}")
