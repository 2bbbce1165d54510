# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# racy: right
# names: read element 0 of rank 1's symmetric buffer at line 15 before rank 1 wrote it at line 12
# names_zh: 在第 15 行读取了 rank 1 的对称缓冲区的第 0 个元素
# The barrier comes before the store, so it orders nothing: a peer may load before it stored.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.barrier()
    symm.write(rank, t)
    parts = {rank: t.clone()}
    for k in range(1, n):
        parts[(rank + k) % n] = symm.read((rank + k) % n, 0, size)
    total = parts[0]
    for p in range(1, n):
        total += parts[p]
    t.copy_(total)
