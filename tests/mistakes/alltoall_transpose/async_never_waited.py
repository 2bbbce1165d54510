# expect: wrong_answer
# gloo: wrong on sample-4-ranks
# racy: right
# names: all_to_all_single (line 15) was never waited on
# names_zh: all_to_all_single（第 15 行） 从未等待
# async_op=True returns a work that is never waited: the result is read before it is written.
import torch
import torch.distributed as dist


def transpose(row):
    n = dist.get_world_size()
    k = row.numel() // n
    received = torch.zeros_like(row)
    dist.all_to_all_single(received, row, async_op=True)
    return received.view(n, k).t()
