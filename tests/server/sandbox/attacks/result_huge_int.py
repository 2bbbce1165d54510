# attack: return an integer of 1 329 bits where a float is expected: it overflows every float
#         comparison (math.isclose) and the grader's own diagnosis
# exercise: alpha-beta
# expect: runtime_error|wrong_answer


def modeled_time(algo, n, nbytes, alpha_s, beta_Bps):
    return 10**400


def busbw(op, n, nbytes, seconds):
    return -(10**400)
