"""What crosses between the trusted judge and a rank, and what a verdict is: the shared contract.

``protocol`` (the records a runtime reports), ``values`` (a graded call's arguments and result),
``primitives`` (the calls a learner may make and their bytes), ``units`` (sizes and times),
``verdicts`` and ``verdict_json`` (the verdict's codes and JSON).
"""
