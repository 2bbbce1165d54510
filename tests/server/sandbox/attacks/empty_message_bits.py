# attack: pass every rank's input as empty isends, one per set bit on its own tag, read back with
#         is_completed() after an end marker: an all-gather at 0 bytes, summed locally
# expect: over_budget|runtime_error|too_slow|wrong_answer|output_limit
import struct

import torch
import torch.distributed as dist

BITS = 32


def _bits(value):
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    mine = [float(x) for x in t.tolist()]
    empty = torch.empty(0)
    sends, reads = [], {}
    for peer in range(n):
        if peer == rank:
            continue
        for i, x in enumerate(mine):
            word = _bits(x)
            sends += [dist.isend(empty, peer, tag=1 + i * BITS + b)
                      for b in range(BITS) if word >> b & 1]
        reads[peer] = [[dist.irecv(torch.empty(0), peer, tag=1 + i * BITS + b)
                        for b in range(BITS)] for i in range(len(mine))]
    for peer in reads:
        sends.append(dist.isend(empty, peer, tag=0))
    for peer in reads:
        dist.irecv(torch.empty(0), peer, tag=0).wait()
    total = list(mine)
    for words in reads.values():
        for i, bits in enumerate(words):
            total[i] += _value(sum(1 << b for b, req in enumerate(bits) if req.is_completed()))
    for req in sends:
        req.wait()
    t.copy_(torch.tensor(total, dtype=t.dtype))
