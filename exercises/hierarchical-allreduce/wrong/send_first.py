# expect: deadlock
# Mistake: every rank first sends to its right neighbour with a blocking send, then receives. A
# send completes only when its receive is posted, so every rank of the node's ring waits in send.
import torch
import torch.distributed as dist


def all_reduce_2level(t, ranks_per_node):
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes, (node, local) = world // g, divmod(rank, g)
    n = t.numel()
    shards = [t[i * n // g:(i + 1) * n // g] for i in range(g)]
    right, left = node * g + (local + 1) % g, node * g + (local - 1) % g
    for s in range(g - 1):
        buf = torch.empty_like(shards[(local - s - 1) % g])
        dist.send(shards[(local - s) % g], right)
        dist.recv(buf, left)
        shards[(local - s - 1) % g] += buf
    mine = shards[(local + 1) % g]
    peer = (node + 1) % nodes * g + local
    buf = torch.empty_like(mine)
    dist.send(mine, peer)
    dist.recv(buf, peer)
    mine += buf
    for s in range(g - 1):
        buf = torch.empty_like(shards[(local - s) % g])
        dist.send(shards[(local + 1 - s) % g], right)
        dist.recv(buf, left)
        shards[(local - s) % g].copy_(buf)
