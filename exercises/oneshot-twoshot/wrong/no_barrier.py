# expect: wrong_answer
# Mistake: no barrier between storing into the own buffer and loading the peers': a peer may
# not have stored its tensor yet. The judge finds the race whatever the timing.


def oneshot_all_reduce(t, symm):
    rank, n, size = symm.rank, symm.world_size, t.numel()
    symm.write(rank, t)
    total = t.clone()
    for p in range(n):
        if p != rank:
            total += symm.read(p, 0, size)
    t.copy_(total)
