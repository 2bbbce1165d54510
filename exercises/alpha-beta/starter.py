"""The α-β model and bus bandwidth: two functions, no communication (the statement gives every
formula). Each case of the judge calls one of them with one question.

α-β 模型与总线带宽：两个函数，不需要通信（题面给出了全部公式）。评测的每个用例用一个问题调用其中一个。
Run the tests: "Run all tests" in the browser, or python practice/judge.py test alpha-beta [FILE]
"""

import math


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    """Seconds one collective of nbytes per rank takes on n ranks: algo is "ring" (ring
    all-reduce), "recursive_doubling" (recursive-doubling all-reduce) or "tree" (binomial-tree
    broadcast). alpha_s: seconds per step; beta_Bps: bytes per second.
    （返回秒数：algo 为 "ring"、"recursive_doubling" 或 "tree"；alpha_s 单位秒，beta_Bps 单位字节/秒）"""
    # TODO: ring: 2(n-1) steps, each sending nbytes / n.
    # TODO: recursive_doubling and tree: how many rounds, each sending what? (math.log2, math.ceil)
    # 待完成：ring 共 2(n-1) 步，每步发送 nbytes / n；recursive_doubling 和 tree 各需几轮、每轮发送多少？
    return 0.0


def busbw(op, n, nbytes, seconds):
    """nccl-tests' bus bandwidth in GB/s (GB = 1e9 bytes) of one op that took `seconds`;
    nbytes is one rank's input. （nccl-tests 的总线带宽，单位 GB/s；nbytes 是单个 rank 的输入）"""
    # TODO: algbw = nccl-tests' size / seconds; busbw = algbw * the op's factor.
    # 待完成：algbw = nccl-tests 的大小 / 秒数；busbw = algbw × 该操作的系数。
    return 0.0
