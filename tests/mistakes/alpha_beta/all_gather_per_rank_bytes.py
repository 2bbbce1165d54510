# expect: wrong_answer
# gloo: wrong on busbw-all-gather-hidden
# names: nccl-tests' size for all_gather is the gathered output, n · nbytes = 195 MB, not one rank's input
# names_zh: all_gather 的大小是收集后的输出 n · nbytes = 195 MB
# busbw of all_gather from one rank's bytes, not the gathered output's n·S.
import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    rounds = math.ceil(math.log2(n))
    return rounds * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    factor = {"all_reduce": 2 * (n - 1) / n, "broadcast": 1.0, "reduce": 1.0}.get(op, (n - 1) / n)
    return nbytes / seconds / 1e9 * factor
