# expect: wrong_answer
# gloo: wrong on sample-2-nodes-x-2
# names: rank 1's 2nd send (line 22): it sends [33, 44] to rank 3, where the two-level ring sends [11
# names: 22] to rank 3; use the node-local index (local rank r mod g inside a node, node ⌊r/g⌋ on a rail)
# names: yours is elements 2:4 summed over ranks 0, 1, the two-level ring's is elements 0:2 summed
# names_zh: 第 22 行; 应使用节点内的局部序号
# names_zh: 你的是第 2:4 个元素在 rank 0, 1 上之和，而两级环形算法的是第 0:2 个元素
# The ring across the nodes indexes its pieces by global rank instead of node index.
import torch
import torch.distributed as dist


def _pieces(x, k):
    """``x`` cut into ``k`` views, piece i being x[i*len//k : (i+1)*len//k]."""
    n = x.numel()
    return [x[i * n // k:(i + 1) * n // k] for i in range(k)]


def _step(out, into, right, left, group):
    """Send ``out`` to ``right`` while receiving from ``left`` (global ranks) into a new buffer."""
    buf = torch.empty_like(into)
    reqs = [dist.isend(out, right, group=group), dist.irecv(buf, left, group=group)]
    for req in reqs:
        req.wait()
    return buf


def _reduce_scatter(pieces, me, right, left, group):
    """A ring reduce-scatter of k pieces among k ranks; ``me`` is my place in the ring.
    Afterwards my piece (me + 1) % k holds the sum over the ring."""
    k = len(pieces)
    for s in range(k - 1):
        pieces[(me - s - 1) % k].add_(_step(pieces[(me - s) % k], pieces[(me - s - 1) % k],
                                            right, left, group))


def _all_gather(pieces, me, right, left, group):
    """A ring all-gather: my piece (me + 1) % k is final; afterwards every piece is."""
    k = len(pieces)
    for s in range(k - 1):
        pieces[(me - s) % k].copy_(_step(pieces[(me + 1 - s) % k], pieces[(me - s) % k],
                                         right, left, group))


def all_reduce_2level(t, ranks_per_node):
    """Sum ``t`` over all ranks, in place; rank r is local rank r % g on node r // g."""
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes = world // g
    node, local = divmod(rank, g)
    node_groups = [dist.new_group(list(range(k * g, (k + 1) * g))) for k in range(nodes)]
    rails = [dist.new_group([k * g + i for k in range(nodes)]) for i in range(g)]

    shards = _pieces(t, g)
    right, left = node * g + (local + 1) % g, node * g + (local - 1) % g
    _reduce_scatter(shards, local, right, left, node_groups[node])

    mine = _pieces(shards[(local + 1) % g], nodes)
    up, down = (node + 1) % nodes * g + local, (node - 1) % nodes * g + local
    _reduce_scatter(mine, rank, up, down, rails[local])
    _all_gather(mine, rank, up, down, rails[local])

    _all_gather(shards, local, right, left, node_groups[node])
