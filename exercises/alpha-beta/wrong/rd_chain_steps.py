# expect: wrong_answer
# Mistake: recursive doubling with n - 1 rounds (as if each round added one rank's tensor)
# instead of log2(n): every round doubles the ranks a partial sum covers.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    if algo == "recursive_doubling":
        return (n - 1) * (alpha_s + nbytes / beta_Bps)
    return math.ceil(math.log2(n)) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    factor = 2 * (n - 1) / n if op == "all_reduce" else 1.0 if op in ("broadcast", "reduce") \
        else (n - 1) / n
    return size / seconds / 1e9 * factor
