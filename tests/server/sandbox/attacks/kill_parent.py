# attack: kill the judge's runner (the rank's parent) and every process in sight
# expect: runtime_error|wrong_answer
import os
import signal


def ring_all_reduce(t):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(os.getppid(), sig)
        except OSError:
            pass
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
