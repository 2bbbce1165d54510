"""The α-β cost model: replay a switch trace on a topology (pure Python: the browser has it too).

See docs/model.md: :mod:`.replay` replays a trace, :mod:`.costs` is what each
built-in collective costs, :mod:`.topology` the machines, :mod:`.bound` exercises' time bounds,
:mod:`.case` a case's ``model`` and the ``too_slow`` judgement, :mod:`.reference` generated
traces of known algorithms.
"""
