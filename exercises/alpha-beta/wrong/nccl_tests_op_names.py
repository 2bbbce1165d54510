# expect: runtime_error
# Mistake: keys the factors by nccl-tests' binary names (all_reduce_perf, alltoall_perf, ...)
# written from memory: "alltoall" is not the op the judge asks for, "all_to_all".
import math

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1) / n,
          "all_gather": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    if algo == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    return math.ceil(math.log2(n)) * (alpha_s + nbytes / beta_Bps)


def busbw(op, n, nbytes, seconds):
    size = n * nbytes if op == "all_gather" else nbytes
    return size / seconds / 1e9 * FACTOR[op](n)
