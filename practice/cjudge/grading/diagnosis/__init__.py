"""Diagnosis from the run's evidence: what a wrong answer's message says beyond its first
wrong element.

* :mod:`.divergence`: the first step where the learner's messages depart from the exercise's
  reference run on the same inputs (the reference on the simulated runtime).
* :mod:`.waits`: requests whose result was needed but never waited for.
* :mod:`.smallest`: the smallest case that fails the same way.

Each is bounded and total: a diagnosis that fails or runs out of time is dropped, never the
verdict.
"""
