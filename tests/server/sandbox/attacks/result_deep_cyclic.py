# attack: return a list that contains itself (no end to its nesting) in place of the gathered
#         tensor, and have the rank's encoder report a list nested 500 deep on other ranks
# exercise: all-gather
# expect: wrong_answer|runtime_error
import sys

import torch.distributed as dist


def _deep(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


def all_gather(x):
    if dist.get_rank() % 2:
        values = sys.modules.get("cjudge.contract.values")
        if values is not None:
            values.encode = lambda obj, to_data, depth=0: _deep(500)
    loop = [x]
    loop.append(loop)
    return loop
