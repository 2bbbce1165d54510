# attack: create a user namespace to gain capabilities inside it, or change uid
# expect: wrong_answer
import os


def ring_all_reduce(t):
    try:
        os.unshare(os.CLONE_NEWUSER)
    except (OSError, AttributeError):
        pass
    else:
        raise RuntimeError("LEAKED created a user namespace")
    try:
        os.setuid(0)
    except OSError:
        pass
    else:
        raise RuntimeError("LEAKED became uid 0")
    if os.getuid() != 65534:
        raise RuntimeError(f"LEAKED running as uid {os.getuid()}")
