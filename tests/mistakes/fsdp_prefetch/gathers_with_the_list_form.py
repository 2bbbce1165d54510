# expect: over_budget
# gloo: right on sample-4-ranks-4-layers
# names: line 18: 5 all_gather calls; the extra ones send again what another call sent; make each once
# names: yours sends 120 bytes in all_gather where the reference sends 96 (5 calls where the reference
# names_zh: 5 次调用，而参考解只调用 4 次; 多出的调用重复发送了另一次调用已发送的数据; 每份数据只发送一次
# Gathers each layer with the list form of all_gather, and the first layer twice (once to
# prefetch, once again in the loop): the list form is the same collective as
# all_gather_into_tensor, compared with the reference's gathers as such.
import torch
import torch.distributed as dist


def fsdp_forward(layer_fn, shards, x):
    n = dist.get_world_size()

    def gather(layer):
        parts = [torch.empty_like(shards[layer]) for _ in range(n)]
        dist.all_gather(parts, shards[layer])
        return torch.cat(parts)

    gather(0)  # "warm up" the first layer: a gather whose result is thrown away
    for layer in range(len(shards)):
        x = layer_fn(gather(layer), x)
    return x
