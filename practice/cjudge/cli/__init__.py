"""The ``practice/judge.py`` command line: list, start, test, solution, check, bench, doctor."""
