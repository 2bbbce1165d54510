# attack: dig the unwrapped gloo methods out of the monitor's closures and call them directly
# expect: forbidden_primitive|runtime_error
import torch
import torch.distributed as dist


def _original(func):
    for cell in getattr(func, "__closure__", None) or ():
        value = cell.cell_contents
        if callable(value) and getattr(value, "__name__", "") == "allreduce":
            return value
    return None


def ring_all_reduce(t):
    pg = dist.distributed_c10d._get_default_group()
    method = torch._C._distributed_c10d.ProcessGroup.__dict__["allreduce"]
    raw = _original(method)
    if raw is None:
        raise RuntimeError("no original found")
    raw(pg, [t]).wait()
