# attack: sleep forever without using the CPU (an idle rank, not a deadlock in communication)
# expect: time_limit|deadlock
import time


def ring_all_reduce(t):
    time.sleep(10**6)
