# expect: over_budget
# Mistake: loading each peer's whole buffer (n·N elements) when only its first N hold its
# tensor: n times the bytes one-shot needs.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()
    total = t.clone()
    for p in range(n):
        if p != rank:
            total += symm.read(p)[:size]
    t.copy_(total)
