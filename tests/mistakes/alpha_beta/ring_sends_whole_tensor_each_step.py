# expect: wrong_answer
# gloo: wrong on sample-ring-8xH100-1GB
# names: each of the 2(n−1) steps moves S / n, not S
# names_zh: 每一步只传 S / n，而不是 S
# Each of the ring's 2(n - 1) steps moves the whole tensor, not S/n of it.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * (alpha_s + nbytes / beta_Bps)
    rounds = math.ceil(math.log2(n))
    return rounds * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": 1.0}.get(op, (n - 1) / n)
    return size / seconds / 1e9 * factor
