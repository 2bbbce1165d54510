# attack: return a result nested exactly 9 deep, where encoding and checking disagreed (it read
#         as "the judge could not read this rank's channel")
# exercise: all-gather
# expect: wrong_answer
# (one depth limit: what is nested too deep becomes an object the grader calls a wrong answer)
def all_gather(t):
    value = t
    for _ in range(9):
        value = [value]
    return value
