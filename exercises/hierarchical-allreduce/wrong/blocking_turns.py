# expect: too_slow
# Mistake: the right algorithm with blocking send/recv, the first rank of each ring sending first
# and every other rank receiving first. No deadlock and the right bytes on every link, but each
# ring step becomes a chain: the k transfers of a step happen one after another, not at once.
import torch
import torch.distributed as dist


def exchange(out, into, me, right, left):
    buf = torch.empty_like(into)
    if me == 0:
        dist.send(out, right)
        dist.recv(buf, left)
    else:
        dist.recv(buf, left)
        dist.send(out, right)
    return buf


def ring(pieces, me, right, left):
    k = len(pieces)
    for s in range(k - 1):
        pieces[(me - s - 1) % k] += exchange(pieces[(me - s) % k], pieces[(me - s - 1) % k],
                                             me, right, left)
    for s in range(k - 1):
        pieces[(me - s) % k].copy_(exchange(pieces[(me + 1 - s) % k], pieces[(me - s) % k],
                                            me, right, left))


def all_reduce_2level(t, ranks_per_node):
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes, (node, local) = world // g, divmod(rank, g)
    n = t.numel()
    shards = [t[i * n // g:(i + 1) * n // g] for i in range(g)]
    right, left = node * g + (local + 1) % g, node * g + (local - 1) % g
    for s in range(g - 1):  # reduce-scatter inside the node
        shards[(local - s - 1) % g] += exchange(shards[(local - s) % g],
                                                shards[(local - s - 1) % g], local, right, left)
    mine = shards[(local + 1) % g]
    m = mine.numel()
    ring([mine[j * m // nodes:(j + 1) * m // nodes] for j in range(nodes)], node,
         (node + 1) % nodes * g + local, (node - 1) % nodes * g + local)
    for s in range(g - 1):  # all-gather inside the node
        shards[(local - s) % g].copy_(exchange(shards[(local + 1 - s) % g],
                                               shards[(local - s) % g], local, right, left))
