# expect: over_budget
# Mistake: local rank 0 of each node collects its node's tensors, the leaders all-reduce the whole
# tensor across the nodes, and each leader hands the sum back. Correct, but the leader sends
# (g−1)·S inside its node and 2(M−1)/M·S across nodes: one NIC per node carries everything.
import torch
import torch.distributed as dist


def all_reduce_2level(t, ranks_per_node):
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes, (node, local) = world // g, divmod(rank, g)
    leader = node * g
    if local:
        dist.send(t, leader)
        dist.recv(t, leader)
        return
    for peer in range(leader + 1, leader + g):
        buf = torch.empty_like(t)
        dist.recv(buf, peer)
        t += buf
    n = t.numel()
    pieces = [t[i * n // nodes:(i + 1) * n // nodes] for i in range(nodes)]
    up, down = (node + 1) % nodes * g, (node - 1) % nodes * g
    for step in range(nodes - 1):  # a ring all-reduce among the leaders
        buf = torch.empty_like(pieces[(node - step - 1) % nodes])
        reqs = [dist.isend(pieces[(node - step) % nodes], up), dist.irecv(buf, down)]
        for req in reqs:
            req.wait()
        pieces[(node - step - 1) % nodes] += buf
    for step in range(nodes - 1):
        buf = torch.empty_like(pieces[(node - step) % nodes])
        reqs = [dist.isend(pieces[(node + 1 - step) % nodes], up), dist.irecv(buf, down)]
        for req in reqs:
            req.wait()
        pieces[(node - step) % nodes].copy_(buf)
    for peer in range(leader + 1, leader + g):
        dist.send(t, peer)
