"""Double binary tree all-reduce (NCCL's tree algorithm): half of t goes up and back down each
of two binary trees, in `chunks` pieces, so that the pieces pipeline. In place, point-to-point
only.

双二叉树 all-reduce（NCCL 的 tree 算法）：t 的两半各沿一棵二叉树归约上去、再广播下来，
每一半切成 `chunks` 片流水线传送。原地完成，只用点对点通信。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test double-binary-tree [FILE]
"""

import torch.distributed as dist


def btree(n, r):
    """NCCL's binary tree on ranks 0..n-1 (rank 0 is the root): (parent or -1, children).
    NCCL 的二叉树：返回 (父节点或 -1, 子节点列表)。"""
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
    """Rank r's (parent, children) in tree 0 and in tree 1: tree 1 is tree 0 mirrored
    (r -> n-1-r), or shifted by one when n is odd, so a leaf of one is an inner node of the other.
    rank r 在树 0 和树 1 中的 (父节点, 子节点)。"""
    if n % 2:
        move, where = (lambda x: (x + 1) % n), (r - 1) % n
    else:
        move, where = (lambda x: n - 1 - x), n - 1 - r
    parent, kids = btree(n, where)
    return [btree(n, r), (-1 if parent < 0 else move(parent), [move(k) for k in kids])]


def double_tree_all_reduce(t, chunks):
    """Afterwards t on every rank holds the sum over all ranks (t 最终为所有 rank 之和)."""
    rank, n = dist.get_rank(), dist.get_world_size()
    plan = double_tree(n, rank)
    pieces = [list(half.chunk(chunks)) for half in t.chunk(2)]  # views into t
    # TODO: for each piece c, for each tree h (tag=h): receive the piece from each child and add
    #       it; send the partial sum to the parent (the root sends the total to its children);
    #       later receive the total from the parent and pass it on to the children.
    #       Post with isend/irecv and wait only when you need the data, so pieces pipeline.
    # 待完成：对每一片 c、每棵树 h（tag=h）：从每个子节点接收该片并累加；把部分和发给父节点
    #       （根节点把总和发给子节点）；之后从父节点收到总和并转发给子节点。
    #       用 isend/irecv，只在需要数据时 wait，使各片流水线传送。
