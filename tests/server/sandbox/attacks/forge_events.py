# attack: the forgery that beat the in-process monitor: find the judge's monitor with gc and
#         switch it off, call the forbidden all_reduce, then emit forged events (a collective
#         of +W bytes, a send of -W) on the rank's own channel to the judge
# expect: forbidden_primitive
# (there is no monitor to switch off: the switch refuses the all_reduce at the call and records
#  it; what the rank sends on its channel is a request like any other, checked by the judge)
import gc

import torch.distributed as dist


def ring_all_reduce(t):
    for obj in gc.get_objects():
        if type(obj).__name__ in ("CommMonitor", "Monitor", "Tracer"):
            obj.active = False
    try:
        dist.all_reduce(t)
    except RuntimeError:
        pass
    w = t.numel() * t.element_size()
    forged = [{"rank": dist.get_rank(), "seq": 0, "op": "all_reduce", "peer": None, "bytes": w},
              {"rank": dist.get_rank(), "seq": 1, "op": "send", "peer": 0, "bytes": -w}]
    for obj in gc.get_objects():
        if type(obj).__name__ == "ChannelPort":
            for event in forged:
                try:
                    obj.call("event", **event)
                except RuntimeError:
                    pass
