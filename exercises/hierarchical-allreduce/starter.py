"""Hierarchical all-reduce: sum t over all ranks, in place, on M nodes of g = ranks_per_node
ranks each (rank r is local rank r % g on node r // g), point-to-point only: a ring
reduce-scatter inside the node, a ring all-reduce of your shard across the nodes, a ring
all-gather inside the node.

分层 all-reduce：节点内 reduce-scatter，跨节点 all-reduce 自己的分片，再节点内 all-gather，原地写回 t。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test hierarchical-allreduce [FILE]
"""

import torch
import torch.distributed as dist


def all_reduce_2level(t, ranks_per_node):
    """Afterwards t holds the elementwise sum over all ranks (t 最终为所有 rank 的逐元素和)."""
    rank, world = dist.get_rank(), dist.get_world_size()
    g = ranks_per_node
    nodes = world // g
    node, local = divmod(rank, g)
    n = t.numel()
    shards = [t[i * n // g:(i + 1) * n // g] for i in range(g)]  # views: updating them updates t

    # TODO 1: ring reduce-scatter of the g shards among the ranks of your node
    #         (right neighbour node*g + (local+1) % g); afterwards you own one shard's node sum.
    # TODO 2: all-reduce that shard across the nodes, in a ring of the ranks with your local
    #         index: node*g + local -> (node+1) % nodes * g + local. Cut it into `nodes` pieces.
    # TODO 3: ring all-gather of the shards inside your node.
    # Optional: dist.new_group(ranks) makes a group (every rank must create every group, in the
    # same order); pass group=... to isend/irecv, with global ranks as peers.
    # 待完成：节点内 reduce-scatter → 跨节点 all-reduce（同一本地编号的 rank 组成环）→ 节点内 all-gather。
