# attack: raise an exception whose message holds a lone surrogate, which no UTF-8 text can hold:
#         the verdict's message must still print and be served
# expect: runtime_error


def ring_all_reduce(t):
    raise ValueError("half of an emoji: \ud83d, and a stray one: \udfff")
