# The wheel cjudge-exercises' package, written by web/scripts/wheels.py (EXERCISES_INIT): the
# exercises' published files (web/typings/README.md).

from pathlib import Path

#: the folder holding one folder per exercise
ROOT: Path
