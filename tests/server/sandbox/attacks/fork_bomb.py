# attack: fork bomb (children keep forking; errors are ignored)
# expect: time_limit|runtime_error|memory_limit
import os


def ring_all_reduce(t):
    while True:
        try:
            os.fork()
        except OSError:
            pass
