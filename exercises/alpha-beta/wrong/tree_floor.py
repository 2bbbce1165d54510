# expect: wrong_answer
# Mistake: the tree's rounds as int(log2(n)), rounded down: right for 8 ranks, one round short
# for 5 (4 ranks hold the tensor after 2 rounds; the fifth needs a third).
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    return int(math.log2(n)) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    factor = 2 * (n - 1) / n if op == "all_reduce" else 1.0 if op in ("broadcast", "reduce") \
        else (n - 1) / n
    return size / seconds / 1e9 * factor
