# attack: send the judge an event (a request) that names no operation at all, then one whose
#         fields have the wrong types, straight onto the rank's channel
# expect: runtime_error|wrong_answer
# (each is refused as the rank's own malformed request: never the judge's error, never a retry)
import gc
import json
import struct


def ring_all_reduce(t):
    port = next(o for o in gc.get_objects() if type(o).__name__ == "ChannelPort")
    for fields in ({"bytes": 4}, {"request": "post_send", "group": "0", "dst": [], "tag": None}):
        try:
            head = json.dumps(fields).encode()
            port.sock.sendall(struct.pack(">II", len(head), 0) + head)
            port.sock.recv(1 << 16)
        except OSError:
            pass
    return t
