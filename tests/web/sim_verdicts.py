"""What the browser must reproduce, from the CPython simulated runtime, as JSON on stdout.

``sim_verdicts.py exercise_id:path ...``: the verdict of each exercise file.
``sim_verdicts.py --raw`` with ``[{"job": ..., "spec": ...}, ...]`` on stdin: each case's
:class:`~cjudge.protocol.RawCase`.
"""

import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from cjudge.exercises import PRIVATE_FILES, default_root, load_exercises
from cjudge.judge import judge_code
from cjudge.sim import runtime as runtime_sim

if sys.argv[1:] == ["--raw"]:
    json.dump([runtime_sim.run_case(c["job"], c["spec"]) for c in json.load(sys.stdin)], sys.stdout)
    sys.exit()
# the browser holds the exercises' published files only: no reference to compare a run with
published = Path(tempfile.mkdtemp(prefix="cjudge-published-")) / "exercises"
shutil.copytree(default_root(), published, ignore=shutil.ignore_patterns(*PRIVATE_FILES))
exercises = load_exercises(published, published=True)
verdicts = {}
for arg in sys.argv[1:]:
    exercise_id, path = arg.split(":", 1)
    code = Path(path).read_text(encoding="utf-8")
    filename = re.sub(r"[^A-Za-z0-9]+", "_", exercise_id) + ".py"  # as the page names it
    # the browser's runtime is the simulated one, so it explores a failure as the CLI does
    verdicts[arg] = judge_code(exercises[exercise_id], code, filename, runtime_sim.run_case, "sim",
                               explore=runtime_sim.run_case)
shutil.rmtree(published.parent)
json.dump(verdicts, sys.stdout)
