# expect: wrong_answer
# Mistake: returns the chapter's numbers as printed, in microseconds, instead of seconds.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        seconds = 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    else:
        seconds = math.ceil(math.log2(n)) * (alpha_s + nbytes / beta_Bps)
    return seconds * 1e6


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    factor = 2 * (n - 1) / n if op == "all_reduce" else 1.0 if op in ("broadcast", "reduce") \
        else (n - 1) / n
    return size / seconds / 1e9 * factor
