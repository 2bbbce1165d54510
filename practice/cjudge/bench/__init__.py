"""``judge.py bench``: nccl-tests-style bandwidth sweeps of torch's collectives and learners' ones.

Modules, one job each: ``sizes`` (size arguments and sweeps), ``config`` (the run's settings and
its plan of steps), ``collectives`` (torch's built-ins as nccl-tests measures them), ``learners``
(a learner's file as one more series), ``timing``, ``rank`` (one rank's work), ``channel`` (the
key-value side channel from ranks to the monitor), ``monitor`` (the ranks' steps, hang timeout),
``launch`` (own ranks or torchrun's), ``environment``, ``report`` (the JSON), ``table``,
``chart``, ``status_line``, ``fit`` (α and β of this machine from sendrecv, and the model
against the measured ring) and ``cli``.
"""
