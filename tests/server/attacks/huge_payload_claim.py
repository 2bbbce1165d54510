# attack: a request on the rank's channel that claims a 2 GiB payload, then a receive whose
#         capacity claims far more memory than the judge would hold
# expect: runtime_error
# (the judge never trusts a length: the frame is refused before anything is allocated, and that
#  rank's channel ends)
import gc
import struct


def ring_all_reduce(t):
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    port.call("post_recv", group=0, src=None, tag=0, capacity=2 ** 62, dtype="float32", line=1,
              api="x")
