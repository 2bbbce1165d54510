# expect: wrong_answer
# gloo: wrong on tree-5-ranks-hidden
# names: log₂5 = 2.32 is not a whole number of rounds: round it up, ⌈log₂n⌉ = 3
# names_zh: log₂5 = 2.32 不是整数轮
# log2(n) rounds without rounding up: a fraction of a round when n is not a power of two.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    return math.log2(n) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": 1.0}.get(op, (n - 1) / n)
    return size / seconds / 1e9 * factor
