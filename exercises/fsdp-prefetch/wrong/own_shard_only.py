# expect: wrong_answer
# Mistake: never gathers: each layer is applied with this rank's shard of its parameters only.
def fsdp_forward(layer_fn, shards, x):
    for shard in shards:
        x = layer_fn(shard, x)
    return x
