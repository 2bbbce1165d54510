# exercise: ring-attention
# expect: output_limit
# trick: a flood of new_group calls, each a new group, to make the switch scan every group it
#   made on each call and run the case far past its time limit
import torch.distributed as dist


def ring_attention(scores, q, k, v):
    while True:
        dist.new_group([dist.get_rank()])
