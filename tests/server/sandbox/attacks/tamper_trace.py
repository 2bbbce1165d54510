# attack: switch off any communication monitor the judge might keep in the rank, then use the
#         forbidden built-in
# expect: forbidden_primitive
import gc

import torch.distributed as dist


def ring_all_reduce(t):
    for obj in gc.get_objects():
        if type(obj).__name__ in ("CommMonitor", "Monitor", "Tracer"):
            for name in ("active", "enabled"):
                if hasattr(obj, name):
                    setattr(obj, name, False)
            if hasattr(obj, "emit"):
                obj.emit = lambda event: None
    dist.all_reduce(t)
