# attack: call a forbidden collective hundreds of thousands of times, catching each refusal, so
#         that the refusals (once uncounted: 208 000 in 4 s) overflow the judge's record
# expect: forbidden_primitive
# (a refusal counts toward the request cap, only the first are recorded: the case stops at the
#  cap and the verdict names the first refusal)
import torch.distributed as dist


def ring_all_reduce(t):
    for _ in range(300_000):
        try:
            dist.all_reduce(t)
        except Exception:  # noqa: BLE001 - the refusal, then the cap
            pass
