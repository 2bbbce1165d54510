# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# racy: right
# names: of its own symmetric buffer at line 17 before rank 1 wrote it at line 13
# names_zh: 读取了自己的对称缓冲区
# One-shot by stores: each rank stores t into its slot of every buffer, then adds up its own
# buffer's slots, with no barrier between the peers' stores and its loads.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    for k in range(n):
        symm.write((rank + k) % n, t, rank * size)
    total = t.clone()
    for p in range(n):
        if p != rank:
            total += symm.read(rank, p * size, size)
    t.copy_(total)
