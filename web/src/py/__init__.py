"""The browser's side of the kernel: what the runner worker calls inside Pyodide.

Shipped in the wheel ``cjudge-browser`` beside ``cjudge``; the exercises come in the wheel
``cjudge-exercises`` (package ``cjudge_exercises``). ``judge`` judges a file; ``case`` holds a
case's one switch and runs ranks as suspended stacks (JSPI); ``wire``
carries a rank's calls from its own worker to that switch (the workers path).
"""
