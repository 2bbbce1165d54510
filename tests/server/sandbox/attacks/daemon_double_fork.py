# attack: leave a daemon behind (double fork + setsid) that should outlive the submission
# expect: wrong_answer
import os


def ring_all_reduce(t):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in range(3):
                os.close(fd)
            os.execv("/usr/bin/sleep", ["sleep", "98765"])
        os._exit(0)
