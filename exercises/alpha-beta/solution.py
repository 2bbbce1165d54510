"""Reference: the α-β model's closed forms and nccl-tests' bus bandwidth."""

import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    """Seconds one collective takes on n ranks in the α-β model."""
    if algo == "ring":  # all-reduce: reduce-scatter + all-gather, 2(n-1) steps of S/n each
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_Bps
    rounds = math.ceil(math.log2(n))  # log2(n) exactly when n is a power of two
    if algo in ("recursive_doubling", "tree"):  # every round moves the whole tensor
        return rounds * (alpha_s + nbytes / beta_Bps)
    raise ValueError(f"unknown algorithm {algo!r}")


FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1) / n,
          "all_gather": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


def busbw(op, n, nbytes, seconds):
    """nccl-tests' bus bandwidth in GB/s (GB = 1e9 B)."""
    size = n * nbytes if op == "all_gather" else nbytes  # all_gather: the gathered output
    algbw = size / seconds / 1e9
    return algbw * FACTOR[op](n)
