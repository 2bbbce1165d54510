"""Reference: one-shot all-reduce. Each rank stores its tensor into its own symmetric buffer,
one barrier, then loads every peer's buffer (all loads at once, starting with the next rank so
that no two ranks load from one peer at the same time) and adds them in rank order, so every
rank computes the same sum the same way."""


def oneshot_all_reduce(t, symm):
    """Sum ``t`` over all ranks, in place: one barrier and n − 1 loads of S."""
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    symm.barrier()  # every rank's tensor is in its buffer before anyone reads
    parts = {rank: t.clone()}
    for k in range(1, n):
        peer = (rank + k) % n
        parts[peer] = symm.read(peer, 0, size)
    total = parts[0]
    for p in range(1, n):
        total += parts[p]
    t.copy_(total)
