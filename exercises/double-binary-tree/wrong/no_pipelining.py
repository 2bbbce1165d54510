# expect: too_slow
# Mistake: no pipelining: each half goes up its tree whole, and only then back down, ignoring
# `chunks`. Fine for small messages, but at 4 MiB every hop waits for a whole half.
import torch.distributed as dist


def btree(n, r):
    """NCCL's binary tree on ranks 0..n-1 (rank 0 is the root): (parent or -1, children)."""
    bit = 1
    while bit < n and not bit & r:
        bit <<= 1
    if r == 0:
        return -1, [bit >> 1] if n > 1 else []
    up = (r ^ bit) | (bit << 1)
    if up >= n:
        up = r ^ bit
    low = bit >> 1
    kids = [r - low] if low else []
    while low and r + low >= n:
        low >>= 1
    if low:
        kids.append(r + low)
    return up, kids


def double_tree(n, r):
    """Rank r's (parent, children) in tree 0 (btree) and tree 1 (mirrored, or shifted by one
    when n is odd), so that a leaf of one tree is an inner node of the other."""
    if n % 2:
        move, where = (lambda x: (x + 1) % n), (r - 1) % n
    else:
        move, where = (lambda x: n - 1 - x), n - 1 - r
    parent, kids = btree(n, where)
    return [btree(n, r), (-1 if parent < 0 else move(parent), [move(k) for k in kids])]


def double_tree_all_reduce(t, chunks):
    rank, n = dist.get_rank(), dist.get_world_size()
    plan = double_tree(n, rank)
    halves = list(t.chunk(2))
    sends, downs = [], []
    for tree, (parent, kids) in enumerate(plan):
        bufs = [halves[tree].clone() for _ in kids]
        for req in [dist.irecv(buf, kid, tag=tree) for buf, kid in zip(bufs, kids, strict=True)]:
            req.wait()
        for buf in bufs:
            halves[tree] += buf
        if parent >= 0:
            sends.append(dist.isend(halves[tree].clone(), parent, tag=tree))
            downs.append((dist.irecv(halves[tree], parent, tag=tree), tree))
        else:
            sends += [dist.isend(halves[tree], kid, tag=tree) for kid in kids]
    for req, tree in downs:
        req.wait()
        sends += [dist.isend(halves[tree], kid, tag=tree) for kid in plan[tree][1]]
    for req in sends:
        req.wait()
