"""The trusted side: a case's facts, its verdict and the words that explain it.

``grade`` plans cases and grades what a runtime reports, ``facts`` holds what one case's run
established, ``submission`` judges a submission end to end; ``budget``, ``chunks``, ``instead``,
``root_zero``, ``torch_zh``, ``judge_error`` and ``diagnosis/`` write the learner's message.
"""
