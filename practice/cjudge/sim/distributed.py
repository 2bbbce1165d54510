"""The simulated ``torch.distributed``: process-group objects, set-up and queries.

The calls themselves are in ``p2p.py`` and ``collectives.py``. Every communication call is
validated as torch validates it, then becomes one request to the switch, which refuses a
forbidden primitive at the call and records the rest. The process-group methods go through the
same path, so the rules hold there too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import collectives, comm, p2p
from .comm import ReduceOp, Work
from .context import current, in_rank
from .errors import Unsupported, UnsupportedAttribute
from .groups import Group, resolve
from .tensor import Tensor

# ---- process groups ----------------------------------------------------------------------------


class ProcessGroup(Group):
    """``torch.distributed.ProcessGroup``: a group of ranks with torch's methods."""

    def name(self) -> str:
        """The backend's name."""
        return "gloo"

    def __repr__(self) -> str:
        return f"<ProcessGroup {self._gid} ranks={self._members or 'all'}>"

    # The methods take group-local ranks and lists of tensors, like torch's ProcessGroup.

    def send(self, tensors: Sequence[Tensor], dstRank: int, tag: int = 0) -> Work:
        """``ProcessGroup.send``."""
        return p2p.post_send(_one(tensors), None, self, tag, "ProcessGroup.send", dstRank)

    def recv(self, tensors: Sequence[Tensor], srcRank: int, tag: int = 0) -> Work:
        """``ProcessGroup.recv``."""
        return p2p.post_recv(_one(tensors), None, self, tag, "ProcessGroup.recv", srcRank)

    def recv_anysource(self, tensors: Sequence[Tensor], tag: int = 0) -> Work:
        """``ProcessGroup.recv_anysource``."""
        return p2p.post_recv(_one(tensors), None, self, tag, "ProcessGroup.recv_anysource")

    def allreduce(self, tensors: Any, opts: Any = None, op: ReduceOp = ReduceOp.SUM,
                  timeout: Any = None) -> Work:
        """``ProcessGroup.allreduce``."""
        return collectives.call_all_reduce(_one(tensors), _op(opts, op), self,
                                           "ProcessGroup.allreduce")

    def broadcast(self, tensors: Any, opts: Any = None, root: int = 0, timeout: Any = None) -> Work:
        """``ProcessGroup.broadcast`` (``root`` group-local)."""
        root = getattr(opts, "rootRank", opts if isinstance(opts, int) else root)
        return collectives.call_broadcast(_one(tensors), None, root, self,
                                          "ProcessGroup.broadcast")

    def allgather(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.allgather``."""
        return collectives.call_all_gather(_inner(output_tensors), _one(input_tensors), self,
                                           "ProcessGroup.allgather")

    def _allgather_base(self, output: Tensor, input: Tensor, opts: Any = None) -> Work:
        return collectives.call_all_gather_into(output, input, self,
                                                "ProcessGroup._allgather_base")

    all_gather_single = _allgather_base

    def reduce_scatter(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.reduce_scatter``."""
        return collectives.call_reduce_scatter(_one(output_tensors), _inner(input_tensors),
                                               _op(opts, ReduceOp.SUM), self,
                                               "ProcessGroup.reduce_scatter")

    def _reduce_scatter_base(self, output: Tensor, input: Tensor, opts: Any = None) -> Work:
        return collectives.call_reduce_scatter_tensor(output, input, _op(opts, ReduceOp.SUM), self,
                                                      "ProcessGroup._reduce_scatter_base")

    reduce_scatter_single = _reduce_scatter_base

    def alltoall_base(self, output: Tensor, input: Tensor,
                      output_split_sizes: Sequence[int] | None = None,
                      input_split_sizes: Sequence[int] | None = None, opts: Any = None) -> Work:
        """``ProcessGroup.alltoall_base``."""
        return collectives.call_all_to_all_single(output, input, output_split_sizes,
                                                  input_split_sizes, self,
                                                  "ProcessGroup.alltoall_base")

    all_to_all_single = alltoall_base

    def alltoall(self, output_tensors: list[Tensor], input_tensors: list[Tensor],
                 opts: Any = None) -> Work:
        """``ProcessGroup.alltoall``."""
        return collectives.call_all_to_all(output_tensors, input_tensors, self,
                                           "ProcessGroup.alltoall")

    def reduce(self, tensors: Any, opts: Any = None, root: int = 0,
               op: ReduceOp = ReduceOp.SUM) -> Work:
        """``ProcessGroup.reduce`` (``root`` group-local)."""
        return collectives.call_reduce(_one(tensors), None, getattr(opts, "rootRank", root),
                                       _op(opts, op), self, "ProcessGroup.reduce")

    def gather(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.gather`` (root from ``opts.rootRank``, default 0)."""
        outputs = output_tensors[0] if output_tensors else None
        return collectives.call_gather(_one(input_tensors), outputs, None,
                                       getattr(opts, "rootRank", 0), self, "ProcessGroup.gather")

    def scatter(self, output_tensors: Any, input_tensors: Any, opts: Any = None) -> Work:
        """``ProcessGroup.scatter`` (root from ``opts.rootRank``, default 0)."""
        inputs = input_tensors[0] if input_tensors else None
        return collectives.call_scatter(_one(output_tensors), inputs, None,
                                        getattr(opts, "rootRank", 0), self, "ProcessGroup.scatter")

    def barrier(self, opts: Any = None) -> Work:
        """``ProcessGroup.barrier``."""
        return collectives.call_barrier(self, "ProcessGroup.barrier")

    def __getattr__(self, name: str) -> Any:
        raise UnsupportedAttribute(f"ProcessGroup.{name}")


def _one(tensors: Any) -> Tensor:
    if isinstance(tensors, Tensor):
        return tensors
    if isinstance(tensors, (list, tuple)) and len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return tensors[0]
    raise Unsupported("process-group calls with several tensors per rank")


def _inner(tensors: Any) -> list[Tensor]:
    """The one inner list of a ``[[t0, t1, …]]`` argument (or a flat list as it is)."""
    return list(tensors[0] if tensors and isinstance(tensors[0], list) else tensors)


def _op(opts: Any, default: ReduceOp) -> ReduceOp:
    if isinstance(opts, ReduceOp):
        return opts
    return getattr(opts, "reduceOp", default)


WORLD = ProcessGroup(0, None)


class group:
    """``torch.distributed.group``: ``group.WORLD`` is the default group."""

    WORLD = WORLD


class GroupMember:
    """``torch.distributed.GroupMember``."""

    WORLD = WORLD
    NON_GROUP_MEMBER = object()


# ---- set-up and queries ------------------------------------------------------------------------


def init_process_group(backend: Any = None, init_method: Any = None, timeout: Any = None,
                       world_size: int = -1, rank: int = -1, **kwargs: Any) -> None:
    """Nothing to do: the judge creates the process group before the learner's code runs."""
    current()


def destroy_process_group(group: Any = None) -> None:
    """Nothing to do inside the judge (it tears the group down itself)."""


def is_initialized() -> bool:
    """Whether the process group exists (always, on a rank)."""
    return in_rank()


def is_available() -> bool:
    """``torch.distributed`` is available."""
    return True


def is_gloo_available() -> bool:
    """The simulated backend stands for gloo."""
    return True


def is_nccl_available() -> bool:
    """No NCCL here."""
    return False


def is_mpi_available() -> bool:
    """No MPI here."""
    return False


def is_torchelastic_launched() -> bool:
    """The ranks are launched as torchrun would."""
    return True


def get_backend(group: Any = None) -> str:
    """The backend's name."""
    return "gloo"


def get_rank(group: Any = None) -> int:
    """This rank's index in ``group`` (default: the world), or -1 if not a member."""
    return resolve(group).rank()


def get_world_size(group: Any = None) -> int:
    """The number of ranks in ``group`` (default: the world)."""
    return resolve(group).size()


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of a group."""
    return resolve(group)._ranks()


def get_global_rank(group: Any, group_rank: int) -> int:
    """The global rank of a group rank."""
    return resolve(group)._ranks()[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    """The group rank of a global rank."""
    return resolve(group)._ranks().index(global_rank)


def new_group(ranks: Sequence[int] | None = None, timeout: Any = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: str | None = None) -> Any:
    """A group of ``ranks`` (default: all). Every rank must call it, in the same order."""
    ctx = current()
    members = tuple(sorted(int(r) for r in ranks)) if ranks is not None else None
    if members is not None and any(not 0 <= r < ctx.world for r in members):
        raise ValueError(f"new_group: ranks must lie in 0..{ctx.world - 1}, got {list(members)}")
    if members is not None and ctx.rank not in members:
        return GroupMember.NON_GROUP_MEMBER
    gid = comm.posted(lambda: ctx.port.new_group(members or range(ctx.world)))
    return ProcessGroup(gid, members)
