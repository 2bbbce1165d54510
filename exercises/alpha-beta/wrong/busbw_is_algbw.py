# expect: wrong_answer
# Mistake: reports the algorithm bandwidth, bytes / seconds, without the op's bus factor.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    return math.ceil(math.log2(n)) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    return nbytes / seconds / 1e9
