# expect: over_budget
# gloo: right on sample-4-ranks
# names: rank 0 moved 192 bytes in 3 calls (line 19: 3 loads (symm.read) from ranks 1, 2, 3
# names: yours loaded 64 bytes from each of ranks 1, 2, 3 where the one-shot all-reduce loads 16
# names: pass symm.read only the elements you need
# names_zh: 3 次读取（symm.read），来自 rank 1、2、3
# names_zh: symm.read 只传入所需的元素
# Loads each peer's whole buffer (n·N elements, the default numel) and keeps its first N: the
# right sum, n times the bytes. A load is a load, never a send, and counted once.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    parts = {rank: t.clone()}
    for k in range(1, n):
        peer = (rank + k) % n
        parts[peer] = symm.read(peer)[:size]
    total = parts[0]
    for p in range(1, n):
        total += parts[p]
    t.copy_(total)
