"""The grader kit: what an exercise's ``grader.py`` is written with.

* :mod:`.case`: :class:`~.case.Case`, a case's parameters typed once, and the hooks a grader
  declares (:class:`~.case.Grader` and the optional ones, as ``Protocol`` s), each given the
  Case first.
* :mod:`.hooks`: :class:`~.hooks.Hooks`, a grader as the kernel calls it: each case's Case
  built once from its raw parameters and world size, and passed to every hook.
* :mod:`.families`: named families of collectives (a sum every rank holds, a sum sharded by
  rank, a gather, an all-to-all of blocks) that make a grader's inputs, the statement's example,
  the expected results and the usual bounds.
* :mod:`.pieces`: exact inputs and sums, which ranks a wrong sum lacks or doubles, what a
  message carries, what a judge's function was fed, smaller cases.
* :mod:`.mlp`: Megatron's MLP for the tensor-parallel exercises; :mod:`.pipeline`: the
  pipeline exercises' microbatches, stage by stage.
* :mod:`.where`: where a budget was passed, for a message: the rank, the call and its line
  (the peak a ``memory`` hook counts, the first call ``check_traffic`` finds off).

Like DMOJ's checkers, a grader is then a few lines over shared pieces, and only its own rules
(its diagnosis, an unusual bound) are written out.
"""
