# expect: wrong_answer
# Mistake: takes nbytes as nccl-tests' size for every op; for all_gather nccl-tests counts the
# gathered output, n * nbytes.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    return math.ceil(math.log2(n)) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    factor = 2 * (n - 1) / n if op == "all_reduce" else 1.0 if op in ("broadcast", "reduce") \
        else (n - 1) / n
    return nbytes / seconds / 1e9 * factor
