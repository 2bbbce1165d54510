"""Groups of ranks and the checks every communication call shares (arguments, peers, roots).

A :class:`Group` is plain data (an id and its members); ``distributed.ProcessGroup`` adds
torch's methods to it. Validation errors here are the ones torch raises in Python, before the
call reaches the backend: such a call is not traced, as under the real runtime.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .comm import Work
from .context import current
from .tensor import Tensor


class Group:
    """A group of ranks: ``members`` None means all of them (the world)."""

    def __init__(self, gid: int, members: tuple[int, ...] | None) -> None:
        self._gid = gid
        self._members = members

    def _ranks(self) -> list[int]:
        return list(self._members) if self._members is not None else list(range(current().world))

    def rank(self) -> int:
        """This rank's index in the group (-1 if it is not a member)."""
        ranks = self._ranks()
        me = current().rank
        return ranks.index(me) if me in ranks else -1

    def size(self) -> int:
        """The number of ranks in the group."""
        return len(self._ranks())


WORLD_GROUP = Group(0, None)


def resolve(group: Any) -> Group:
    """The group a call is about (None: the world)."""
    if group is None:
        return WORLD_GROUP
    if not isinstance(group, Group):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def tensor_arg(t: Any, what: str = "tensor") -> Tensor:
    """``t`` if it is a tensor, else torch's TypeError."""
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type "
                        f"torch.Tensor but got {type(t).__name__} instead.")
    return t


def tensor_list(ts: Any, what: str) -> list[Tensor]:
    """``ts`` as a list of tensors, else torch's TypeError."""
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"Invalid function argument. Expected parameter `{what}` of type "
                        f"List[torch.Tensor] but got {type(ts).__name__} instead.")
    return [tensor_arg(t, what) for t in ts]


def same_dtype(*groups: Tensor | Sequence[Tensor] | None) -> None:
    """torch's check that the tensors of a call share one dtype (ValueError)."""
    last = None
    for item in groups:
        for t in ([item] if isinstance(item, Tensor) else item or []):
            if last is not None and t.dtype is not last:
                raise ValueError(f"Invalid usage of tensors with different dtypesFound {last} and "
                                 f" {t.dtype}")
            last = t.dtype


def member(g: Group) -> tuple[list[int], int] | None:
    """The group's ranks and this rank's index in it, or None if it is not a member."""
    ranks = g._ranks()
    me = current().rank
    return (ranks, ranks.index(me)) if me in ranks else None


def peer(global_peer: int | None, group_peer: int | None, g: Group, role: str) -> int:
    """The global rank of a p2p peer given as a global or a group rank (role "dst" or "src")."""
    ranks = g._ranks()
    if group_peer is not None:
        if global_peer is not None:
            raise ValueError(f"Cannot specify both {role} and group_{role}")
        global_peer = ranks[group_peer]
    if global_peer is None:
        raise ValueError(f"{role} rank must be given")
    global_peer = int(global_peer)
    if global_peer not in ranks:
        raise ValueError(f"Invalid {role} rank {global_peer}: the group holds ranks {ranks}")
    if global_peer == current().rank:
        word = "destination" if role == "dst" else "source"
        raise RuntimeError(f"Invalid {word} rank: {word} rank should not be the same as the rank "
                           "of the current process.")
    return global_peer


def root(global_root: int | None, group_root: int | None, g: Group, what: str) -> int:
    """The global rank of a collective's root given as a global or a group rank (default 0)."""
    ranks = g._ranks()
    if group_root is not None:
        global_root = ranks[group_root]
    if global_root is None:
        global_root = ranks[0]
    if global_root not in ranks:
        raise ValueError(f"{what}: rank {global_root} is not in the group (ranks {ranks})")
    return int(global_root)


def idle() -> Work:
    """The Work of a call this rank takes no part in (not a member of the group)."""
    return Work(lambda: None, lambda: True)


def finish(work: Work, async_op: bool) -> Work | None:
    """The Work for ``async_op=True``; otherwise wait for it, as the blocking call does."""
    if async_op:
        return work
    work.wait()
    return None
