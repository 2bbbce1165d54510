"""Point-to-point calls: ``send``, ``recv``, ``isend``, ``irecv``, ``batch_isend_irecv``.

Under gloo, a send completes once the receiver has posted the matching receive (see
``transport.py``). The tensor checks of the backend (contiguity) come after the call is traced,
as under the real runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import comm, groups
from .comm import Work
from .context import check, current
from .tensor import Tensor


def _contiguous(t: Tensor) -> None:
    if not t.is_contiguous():
        raise RuntimeError("input tensor has to be contiguous")


def post_send(t: Any, dst: int | None, group: Any, tag: int, api: str,
              group_dst: int | None = None) -> Work:
    """A send of ``t`` to ``dst`` (or group rank ``group_dst``), checked and traced."""
    call = check(api, "send")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    peer = groups.peer(dst, group_dst, g, "dst")
    _contiguous(t)
    return comm.isend(current(), t, g._gid, peer, tag, call)


def post_recv(t: Any, src: int | None, group: Any, tag: int, api: str,
              group_src: int | None = None) -> Work:
    """A receive into ``t`` from ``src`` (or group rank ``group_src``; neither: any)."""
    call = check(api, "recv")
    g = groups.resolve(group)
    t = groups.tensor_arg(t)
    peer = None if src is None and group_src is None else groups.peer(src, group_src, g, "src")
    _contiguous(t)
    return comm.irecv(current(), t, g._gid, peer, tag, call)


def isend(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work:
    """Send ``tensor`` to ``dst`` without waiting; ``wait()`` the returned Work."""
    return post_send(tensor, dst, group, tag, "isend", group_dst)


def irecv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work:
    """Receive into ``tensor`` from ``src`` (None: any) without waiting; ``wait()`` the Work."""
    return post_recv(tensor, src, group, tag, "irecv", group_src)


def send(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send ``tensor`` to ``dst``; returns once ``dst`` has posted the matching receive."""
    post_send(tensor, dst, group, tag, "send", group_dst).wait()


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor`` from ``src`` (None: any); returns the sender's rank."""
    work = post_recv(tensor, src, group, tag, "recv", group_src)
    work.wait()
    return work.source_rank()


class P2POp:
    """One operation of ``batch_isend_irecv``: ``P2POp(dist.isend or dist.irecv, tensor, peer)``."""

    def __init__(self, op: Callable[..., Any], tensor: Tensor, peer: int | None = None,
                 group: Any = None, tag: int = 0, group_peer: int | None = None) -> None:
        if op is not isend and op is not irecv:
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                "``torch.distributed.irecv``."
            )
        self.op = op
        self.tensor = tensor
        self.peer = peer
        self.group = group
        self.tag = tag
        self.group_peer = group_peer


def batch_isend_irecv(p2p_op_list: Sequence[P2POp]) -> list[Work]:
    """Post every operation of the list; returns their Works, to ``wait()``."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    post = {isend: post_send, irecv: post_recv}
    return [post[p.op](p.tensor, p.peer, p.group, p.tag, "batch_isend_irecv", p.group_peer)
            for p in p2p_op_list]
