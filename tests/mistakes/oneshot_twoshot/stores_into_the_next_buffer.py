# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# names: rank 0's 1st call, symm.write (line 12): it stores into rank 1's buffer
# names: where the one-shot all-reduce stores into rank 0's
# names_zh: 它写入的是 rank 1 的缓冲区
# Stores t into the next rank's buffer instead of its own: the buffer read from peer p holds
# rank p − 1's tensor, so one rank is counted twice and another is missing.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write((rank + 1) % n, t)
    symm.barrier()
    parts = {rank: t.clone()}
    for k in range(1, n):
        peer = (rank + k) % n
        parts[peer] = symm.read(peer, 0, size)
    acc = parts[0].clone()
    for p in range(1, n):
        acc += parts[p]
    t.copy_(acc)
