# Prepended to a reference: dist's point-to-point calls send one message per element (the same
# bytes, many more messages). Names start with _trick so they never meet the reference's own.
import torch.distributed as _trick_dist

_trick_isend, _trick_irecv = _trick_dist.isend, _trick_dist.irecv


class _TrickAll:
    """Every piece's work as one."""

    def __init__(self, works):
        self.works = works

    def wait(self):
        for w in self.works:
            w.wait()
        return True

    def is_completed(self):
        return all(w.is_completed() for w in self.works)


def _trick_pieces(tensor):
    flat = tensor.view(-1)
    return [flat[i:i + 1] for i in range(flat.numel())]


def _trick_split_isend(tensor, dst, group=None, tag=0):
    return _TrickAll([_trick_isend(p.contiguous(), dst, tag=tag) for p in _trick_pieces(tensor)])


def _trick_split_irecv(tensor, src=None, group=None, tag=0):
    return _TrickAll([_trick_irecv(p, src, tag=tag) for p in _trick_pieces(tensor)])


def _trick_split_send(tensor, dst, group=None, tag=0):
    _trick_split_isend(tensor, dst, group, tag).wait()


def _trick_split_recv(tensor, src=None, group=None, tag=0):
    _trick_split_irecv(tensor, src, group, tag).wait()
    return src


_trick_dist.isend, _trick_dist.irecv = _trick_split_isend, _trick_split_irecv
_trick_dist.send, _trick_dist.recv = _trick_split_send, _trick_split_recv
