"""torch's built-in collectives as nccl-tests measures them.

For each: the buffer layout for a size (nccl-tests' ``size`` and ``count`` columns), inputs whose
results are exact in any order of reduction (small integers), the expected result, one call of
the built-in, and the bus-bandwidth factor (nccl-tests' doc/PERFORMANCE.md).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import torch
import torch.distributed as dist

#: nccl-tests' type names (config.DTYPES) -> torch dtypes
TORCH_DTYPES = {"float": torch.float32, "double": torch.float64, "half": torch.float16,
                "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64}
#: torch 2.13 renamed these two (the old names warn); torch >= 2.4 is supported
REDUCE_SCATTER = getattr(dist, "reduce_scatter_single", dist.reduce_scatter_tensor)
ALL_GATHER = getattr(dist, "all_gather_single", dist.all_gather_into_tensor)
#: bits of exact integers per dtype: a sum of ``world`` pattern values must stay below 2**bits
EXACT_BITS = {torch.float32: 24, torch.float64: 53, torch.float16: 11, torch.bfloat16: 8,
              torch.int32: 31, torch.int64: 63}


@dataclass(frozen=True)
class RankCtx:
    """Who this rank is and what it benchmarks with."""

    rank: int
    world: int
    root: int
    dtype: torch.dtype
    device: torch.device


@dataclass(frozen=True)
class Layout:
    """The buffers of one size. ``nbytes`` is nccl-tests' size: the larger of send and receive."""

    count: int  # nccl-tests' count: the element count the NCCL call is given
    numel_in: int
    numel_out: int
    nbytes: int


@dataclass
class Buffers:
    """The tensors of one call; ``out`` is ``inp`` for in-place collectives."""

    inp: torch.Tensor
    out: torch.Tensor


def pattern(numel: int, rank: int, ctx: RankCtx) -> torch.Tensor:
    """Rank ``rank``'s input: small integers, different on every rank, exact when summed."""
    modulus = max(2, min(2**16, 2 ** EXACT_BITS[ctx.dtype] // ctx.world))
    ints: torch.Tensor = ((torch.arange(numel, dtype=torch.int64, device=ctx.device) * 31 + rank * 17 + 1)
                          % modulus)
    return ints.to(ctx.dtype)


def pattern_sum(numel: int, ctx: RankCtx) -> torch.Tensor:
    """The elementwise sum of every rank's pattern, exact."""
    total = torch.zeros(numel, dtype=ctx.dtype, device=ctx.device)
    for rank in range(ctx.world):
        total += pattern(numel, rank, ctx)
    return total


def count_wrong(got: torch.Tensor | None, expected: torch.Tensor | None) -> int:
    """Elements of ``got`` that differ from ``expected``; all of them if it is missing or
    misshapen; none where nothing is expected (a reduce's non-root ranks)."""
    if expected is None:
        return 0
    if got is None or got.numel() != expected.numel():
        return expected.numel()
    return int((got.reshape(-1) != expected).sum().item())


class Collective(ABC):
    """One of torch's built-ins, as nccl-tests' matching test measures it."""

    name: ClassVar[str]
    redop: ClassVar[str] = "none"
    in_place: ClassVar[bool] = False
    rooted: ClassVar[bool] = False

    def factor(self, world: int) -> float:
        """busbw / algbw: (n-1)/n unless overridden."""
        return (world - 1) / world

    def layout(self, nbytes: int, world: int, itemsize: int) -> Layout:
        """Rank-independent tensors of ``count`` elements, at least one."""
        count = max(1, nbytes // itemsize)
        return Layout(count, count, 0 if self.in_place else count, count * itemsize)

    def buffers(self, lay: Layout, ctx: RankCtx) -> Buffers:
        """This rank's input (its pattern) and an output to receive into."""
        inp = pattern(lay.numel_in, ctx.rank, ctx)
        out = inp if self.in_place else torch.empty(lay.numel_out, dtype=ctx.dtype, device=ctx.device)
        return Buffers(inp, out)

    @abstractmethod
    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        """One call of the built-in."""

    @abstractmethod
    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor | None:
        """What ``out`` must hold on this rank afterwards (flat); None: anything."""


class AllReduce(Collective):
    name = "all_reduce"
    redop = "sum"
    in_place = True

    def factor(self, world: int) -> float:
        return 2 * (world - 1) / world

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        dist.all_reduce(bufs.inp)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        return pattern_sum(lay.count, ctx)


class ReduceScatter(Collective):
    name = "reduce_scatter"
    redop = "sum"

    def layout(self, nbytes: int, world: int, itemsize: int) -> Layout:
        count = max(1, nbytes // itemsize // world)
        return Layout(count, count * world, count, count * world * itemsize)

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        REDUCE_SCATTER(bufs.out, bufs.inp)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        return pattern_sum(lay.numel_in, ctx)[ctx.rank * lay.count:(ctx.rank + 1) * lay.count]


class AllGather(Collective):
    name = "all_gather"

    def layout(self, nbytes: int, world: int, itemsize: int) -> Layout:
        count = max(1, nbytes // itemsize // world)
        return Layout(count, count, count * world, count * world * itemsize)

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        ALL_GATHER(bufs.out, bufs.inp)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        return torch.cat([pattern(lay.count, r, ctx) for r in range(ctx.world)])


class AllToAll(Collective):
    """``all_to_all_single``: block p of rank r's input goes to rank p, as block r."""

    name = "all_to_all"

    def layout(self, nbytes: int, world: int, itemsize: int) -> Layout:
        count = max(1, nbytes // itemsize // world)
        return Layout(count, count * world, count * world, count * world * itemsize)

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        dist.all_to_all_single(bufs.out, bufs.inp)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        mine = slice(ctx.rank * lay.count, (ctx.rank + 1) * lay.count)
        return torch.cat([pattern(lay.numel_in, r, ctx)[mine] for r in range(ctx.world)])


class Broadcast(Collective):
    """In place from the root; the other ranks start from their own pattern so a no-op shows."""

    name = "broadcast"
    in_place = True
    rooted = True

    def factor(self, world: int) -> float:
        return 1.0

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        dist.broadcast(bufs.inp, src=ctx.root)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        return pattern(lay.count, ctx.root, ctx)


class Reduce(Collective):
    """In place to the root, summed; the other ranks' tensors are left undefined (as NCCL)."""

    name = "reduce"
    redop = "sum"
    in_place = True
    rooted = True

    def factor(self, world: int) -> float:
        return 1.0

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        dist.reduce(bufs.inp, dst=ctx.root)

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor | None:
        return pattern_sum(lay.count, ctx) if ctx.rank == ctx.root else None


class SendRecv(Collective):
    """Every rank sends to the next and receives from the previous one, at once (a ring shift)."""

    name = "sendrecv"

    def factor(self, world: int) -> float:
        return 1.0

    def run(self, bufs: Buffers, ctx: RankCtx) -> None:
        ops = [dist.P2POp(dist.isend, bufs.inp, (ctx.rank + 1) % ctx.world),
               dist.P2POp(dist.irecv, bufs.out, (ctx.rank - 1) % ctx.world)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()

    def expected(self, lay: Layout, ctx: RankCtx) -> torch.Tensor:
        return pattern(lay.count, (ctx.rank - 1) % ctx.world, ctx)


COLLECTIVES: dict[str, Collective] = {
    c.name: c for c in (AllReduce(), ReduceScatter(), AllGather(), AllToAll(), Broadcast(),
                        Reduce(), SendRecv())
}
