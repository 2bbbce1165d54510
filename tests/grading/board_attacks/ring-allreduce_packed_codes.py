# exercise: ring-allreduce
# expect: wrong_answer
# trick: in a float64 case, send each chunk as its values' codes (x·16) two to an int64 word,
#        a payload as wide as the case's elements and so charged as sent: lossless on multiples of 1/16,
#        half the bytes (the drawn inputs carry low bits no such code holds, so it is wrong)
import torch
import torch.distributed as dist

WORD = 2 ** 32


def _pack(chunk):
    codes = (chunk * 16).to(torch.int64)
    half = (codes.numel() + 1) // 2
    low = torch.cat([codes[half:], torch.zeros(2 * half - codes.numel(), dtype=torch.int64)])
    return codes[:half] * WORD + low + WORD // 2


def _unpack(words, numel, dtype):
    low = words % WORD - WORD // 2
    high = (words - low - WORD // 2) // WORD
    return torch.cat([high, low])[:numel].to(dtype) / 16


def _exchange(chunk, into, right, left):
    packs = chunk.dtype == torch.float64  # a float32 case's codes would not halve its bytes
    buf = torch.empty((into.numel() + 1) // 2, dtype=torch.int64) if packs else torch.empty_like(into)
    reqs = [dist.isend(_pack(chunk) if packs else chunk.contiguous(), right), dist.irecv(buf, left)]
    for req in reqs:
        req.wait()
    return _unpack(buf, into.numel(), into.dtype) if packs else buf


def ring_all_reduce(t):
    rank, n = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % n, (rank - 1) % n
    chunks = list(t.chunk(n))
    for step in range(n - 1):
        send_idx, recv_idx = (rank - step) % n, (rank - step - 1) % n
        chunks[recv_idx] += _exchange(chunks[send_idx], chunks[recv_idx], right, left)
    for step in range(n - 1):
        send_idx, recv_idx = (rank + 1 - step) % n, (rank - step) % n
        chunks[recv_idx].copy_(_exchange(chunks[send_idx], chunks[recv_idx], right, left))
