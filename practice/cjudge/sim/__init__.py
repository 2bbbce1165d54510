"""The simulated runtime: a pure-Python stand-in for the subset of torch the exercises use.

Stdlib only (no numpy, no torch, no threads on the rank side), so that the grading kernel runs
unchanged in Pyodide. ``modules()`` (``modules.py``) gives the ``torch`` and
``torch.distributed`` module objects; ``rank.run_rank`` runs one rank of a case over a
``transport.Transport``; ``threads.ThreadTransport`` is the CPython transport used by
``cjudge.sim.runtime``.
"""
