# exercise: all-gather
# expect: over_budget|too_slow
# trick: send each block as three int8 planes of its values' 24-bit codes (the drawn values are
#        multiples of 1/4 below 2**20): lossless, 3 bytes an element where float32 costs 4 (was
#        accepted at 0.75 of the reference's bytes and time; charged at the case's width now)
import torch
import torch.distributed as dist


def _pack(block):
    codes = (block * 4).to(torch.int64)
    return torch.cat([(codes // s) % 256 - 128 for s in (1, 256, 65536)]).to(torch.int8)


def _unpack(planes, numel, dtype):
    p = planes.to(torch.int64) + 128
    codes = p[:numel] + p[numel:2 * numel] * 256 + p[2 * numel:] * 65536
    return codes.to(dtype) / 4


def all_gather(x):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    m = x.numel()
    packed = [None] * n
    packed[rank] = _pack(x)
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        packed[recv_idx] = torch.empty(3 * m, dtype=torch.int8)
        reqs = [dist.isend(packed[send_idx], right), dist.irecv(packed[recv_idx], left)]
        for req in reqs:
            req.wait()
    return torch.cat([_unpack(p, m, x.dtype) for p in packed])
