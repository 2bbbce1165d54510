# attack: at module level, where collectives are allowed, every rank posts 32 MiB all_reduces on
#         its raw channel and waits on each without ever reading the judge's replies, so that
#         the replies pile up in the judge (4 ranks x 48 MiB grew it by 840 MiB)
# expect: time_limit|memory_limit|runtime_error
# (replies queued to a rank count as the switch's held bytes, and while one is unread the judge
#  reads nothing more from that rank: the flood stalls itself)
import gc

from cjudge.switch.wire import encode

PAYLOAD = bytes(32 << 20)
PORT = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
for handle in range(10_000, 10_040):
    PORT.sock.sendall(encode({"request": "post_collective", "handle": handle, "quiet": True,
                              "group": 0, "kind": "all_reduce", "dtype": "float32", "line": 1,
                              "api": "all_reduce", "op": "sum", "root": None, "splits": None},
                             PAYLOAD))
    PORT.sock.sendall(encode({"request": "wait", "handle": handle}))


def ring_all_reduce(t):
    return None
