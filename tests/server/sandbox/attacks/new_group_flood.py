# attack: make process groups in a loop (once uncounted, each one recorded in the trace) until
#         the judge's record overflows
# expect: output_limit|runtime_error|time_limit
# (new_group counts toward the request cap: the case stops there)
import torch.distributed as dist


def ring_all_reduce(t):
    everyone = list(range(dist.get_world_size()))
    for _ in range(1_000_000):
        dist.new_group(everyone)
