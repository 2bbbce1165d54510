# attack: fill /tmp (and try every other writable place) until the disk is full
# expect: runtime_error|wrong_answer|forbidden_primitive
# (runtime_error: a confined rank may create or write no file; forbidden_primitive: the wire
#  check counts every write(2) of a rank, files included)
import os


def ring_all_reduce(t):
    for place in ("/", "/usr", "/judge", "/etc", "/work"):
        try:
            with open(os.path.join(place, "pwned"), "w") as f:
                f.write("x")
            raise RuntimeError(f"LEAKED wrote into {place}")
        except OSError:
            pass
    block = b"\0" * (1 << 20)
    with open(f"/tmp/fill.{os.getpid()}", "wb") as f:
        try:
            while True:
                f.write(block)
                f.flush()
        except OSError:
            pass  # ENOSPC or EFBIG: the private tmpfs is full, nobody else's disk
