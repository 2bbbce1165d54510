# expect: deadlock
# gloo: deadlock on sample-4-ranks
# names: rank 1 waits (line 75) for its irecv from rank 2 (posted at line 74)
# names: sends with tag 1 (line 79) are left unmatched by receives with tag 0 (line 74) (0 to 1, 2 to 1)
# names_zh: 标签为 1 的发送（第 79 行）与标签为 0 的接收（第 74 行）无法匹配
# Receives from its children without the tree's tag: tree 1's pieces, sent with tag 1, never match.
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


def height(n, r, tree):
    """How many hops below rank r the deepest leaf of ``tree`` (0 or 1) is."""
    return max((1 + height(n, kid, tree) for kid in double_tree(n, r)[tree][1]), default=0)


def depth(n, r, tree):
    """How many hops above rank r the root of ``tree`` is."""
    parent = double_tree(n, r)[tree][0]
    return 0 if parent < 0 else 1 + depth(n, parent, tree)


def double_tree_all_reduce(t, chunks):
    """Sum t over all ranks, in place: half h of t goes up tree h and back down (tag h), in
    `chunks` pieces. Piece c can be summed here at step c + height (its leaves sent it at step
    c) and is back from the root at about step c + height + 2·depth: waiting for them in that
    order keeps every piece moving."""
    rank, n = dist.get_rank(), dist.get_world_size()
    plan = double_tree(n, rank)
    pieces = [list(half.chunk(chunks)) for half in t.chunk(2)]
    events = []
    for tree, (parent, _) in enumerate(plan):
        up, back = height(n, rank, tree), height(n, rank, tree) + 2 * depth(n, rank, tree)
        for c in range(len(pieces[tree])):
            events.append((c + up, 0, tree, c))
            if parent >= 0:
                events.append((c + back, 1, tree, c))
    sends, downs = [], {}
    for _, down, tree, c in sorted(events):
        parent, kids = plan[tree]
        piece = pieces[tree][c]
        if down:
            downs.pop((tree, c)).wait()
        else:
            bufs = [piece.clone() for _ in kids]
            for req in [dist.irecv(buf, kid) for buf, kid in zip(bufs, kids, strict=True)]:
                req.wait()
            for buf in bufs:
                piece += buf
            if parent >= 0:
                sends.append(dist.isend(piece.clone(), parent, tag=tree))
                downs[tree, c] = dist.irecv(piece, parent, tag=tree)
                continue
        sends += [dist.isend(piece, kid, tag=tree) for kid in kids]
    for req in sends:
        req.wait()
