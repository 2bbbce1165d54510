"""DDP with overlap: all-reduce (mean) each bucket of gradients as soon as it is full, with
async_op=True, while backward() goes on producing the next layers' gradients.

DDP 重叠：桶一装满就用 async_op=True 对它做 all-reduce（求平均），同时 backward() 继续产出后面各层的梯度。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test ddp-overlap [FILE]
"""

import torch
import torch.distributed as dist


def train_step(backward, n_layers, bucket_bytes):
    """The mean over the ranks of every layer's gradient, as a list in layer order (index l:
    layer l). 返回每层梯度在各 rank 上的平均值，按层的顺序组成列表（下标 l 即第 l 层）。"""
    grads = []
    for g in backward():  # layer n_layers − 1 first / 先产出第 n_layers − 1 层
        # TODO: add g to the open bucket; once it holds at least bucket_bytes (or g is the
        #       last gradient), all-reduce the bucket with async_op=True and keep the work.
        # 待完成：把 g 放进当前桶；桶里至少有 bucket_bytes 字节（或 g 是最后一个梯度）时，用
        #       async_op=True 对这个桶做 all_reduce，并保存返回的 work。
        grads.append(g)
    # TODO: wait for every work, divide by the world size, split the buckets back into layers.
    # 待完成：等待所有 work，除以 world size，再把桶拆回各层。
    return grads[::-1]
