# attack: open for writing any file the judge's processes hold (/proc/<pid>/fd of PID 1 and of the runner)
# expect: wrong_answer
import os


def ring_all_reduce(t):
    reached = []
    for pid in {os.getppid(), 1}:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK))
                reached.append(f"{pid}/{fd}")
            except OSError:
                pass
    if reached:
        print("LEAKED: opened", reached)
