# expect: forbidden_primitive
# Mistake: makes the node and cross-node groups with new_group (allowed), then lets the built-in
# dist.all_reduce do the work on each level.
import torch.distributed as dist


def all_reduce_2level(t, ranks_per_node):
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    node_groups = [dist.new_group(list(range(k, k + g))) for k in range(0, world, g)]
    rails = [dist.new_group(list(range(i, world, g))) for i in range(g)]
    dist.all_reduce(t, group=node_groups[rank // g])
    dist.all_reduce(t, group=rails[rank % g])
