# attack: probe the judge's expert once with a row of ones per local expert to learn the
#         experts' factors, share them in an integer all_to_all_single, and compute the MoE
#         layer locally: no token ever leaves its rank
# exercise: moe-dispatch-combine
# expect: wrong_answer
# (the switch records what expert was given: not the rows dispatch must return; and the routed
#  tokens' bytes have a lower bound too)
import torch
import torch.distributed as dist


def dispatch(x, topk_idx, num_experts):
    n = dist.get_world_size()
    local = num_experts // n
    k = topk_idx.shape[1]
    expert_of = topk_idx.reshape(-1)
    order = torch.argsort(expert_of, stable=True)
    send = x.index_select(0, order // k)
    send_counts = torch.bincount(expert_of, minlength=num_experts)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)
    send_splits = send_counts.view(n, local).sum(1).tolist()
    recv_splits = recv_counts.view(n, local).sum(1).tolist()
    received = torch.empty(sum(recv_splits), x.shape[1], dtype=x.dtype)
    dist.all_to_all_single(received, send, recv_splits, send_splits)
    block = torch.arange(local).view(1, local) * n + torch.arange(n).view(n, 1)
    key = torch.repeat_interleave(block.reshape(-1), recv_counts)
    perm = torch.argsort(key, stable=True)
    counts = recv_counts.view(n, local).sum(0).tolist()
    return received.index_select(0, perm), (counts, None)


def moe_layer(x, topk_idx, topk_w, num_experts, expert):
    n = dist.get_world_size()
    local = num_experts // n
    mine = expert(torch.ones(local, 1, dtype=x.dtype), [1] * local).reshape(-1)
    factors = torch.empty(n * local, dtype=torch.int64)
    dist.all_to_all_single(factors, torch.cat([mine.to(torch.int64)] * n))
    f = factors.to(x.dtype)
    return ((topk_w * f[topk_idx]).sum(1, keepdim=True) * x)
