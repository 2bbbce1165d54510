# attack: a receive whose capacity claims far more memory than the judge would hold, then a
#         frame on the rank's channel that claims a 2 GiB payload
# expect: runtime_error
# (the judge never trusts a length: the receive is refused at the call, the frame before
#  anything is allocated, and that rank's channel ends)
import gc
import struct


def ring_all_reduce(t):
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    try:
        port.call("post_recv", group=0, src=None, tag=0, capacity=2 ** 62, dtype="float32",
                  line=1, api="x")
    except RuntimeError:
        pass
    port.sock.sendall(struct.pack(">II", 2, 2 ** 31) + b"{}")
    port.sock.recv(1)
