# expect: wrong_answer
# Mistake: after the ring reduce-scatter inside the node, rank `local` owns the finished shard
# (local + 1) % g, but this all-reduces and gathers shard `local` instead: the shards sent across
# the nodes are partial sums, mis-indexed against what the all-gather expects.
import torch
import torch.distributed as dist


def step(out, into, right, left):
    buf = torch.empty_like(into)
    reqs = [dist.isend(out, right), dist.irecv(buf, left)]
    for req in reqs:
        req.wait()
    return buf


def all_reduce_2level(t, ranks_per_node):
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes, (node, local) = world // g, divmod(rank, g)
    n = t.numel()
    shards = [t[i * n // g:(i + 1) * n // g] for i in range(g)]
    right, left = node * g + (local + 1) % g, node * g + (local - 1) % g
    for s in range(g - 1):
        i = (local - s - 1) % g
        shards[i] += step(shards[(local - s) % g], shards[i], right, left)
    mine = shards[local]
    m = mine.numel()
    pieces = [mine[j * m // nodes:(j + 1) * m // nodes] for j in range(nodes)]
    up, down = (node + 1) % nodes * g + local, (node - 1) % nodes * g + local
    for s in range(nodes - 1):
        j = (node - s - 1) % nodes
        pieces[j] += step(pieces[(node - s) % nodes], pieces[j], up, down)
    for s in range(nodes - 1):
        j = (node - s) % nodes
        pieces[j].copy_(step(pieces[(node + 1 - s) % nodes], pieces[j], up, down))
    for s in range(g - 1):
        i = (local - s - 1) % g
        shards[i].copy_(step(shards[(local - s) % g], shards[i], right, left))
