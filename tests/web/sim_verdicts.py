"""What the browser must reproduce, from the CPython simulated runtime, as JSON on stdout.

``sim_verdicts.py exercise_id:path ...``: the verdict of each exercise file.
``sim_verdicts.py --raw`` with ``[{"job": ..., "spec": ...}, ...]`` on stdin: each case's
:class:`~cjudge.protocol.RawCase`.
"""

import json
import re
import sys
from pathlib import Path

from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code
from cjudge.sim import runtime as runtime_sim

if sys.argv[1:] == ["--raw"]:
    json.dump([runtime_sim.run_case(c["job"], c["spec"]) for c in json.load(sys.stdin)], sys.stdout)
    sys.exit()
exercises = load_exercises(default_root())
verdicts = {}
for arg in sys.argv[1:]:
    exercise_id, path = arg.split(":", 1)
    code = Path(path).read_text(encoding="utf-8")
    filename = re.sub(r"[^A-Za-z0-9]+", "_", exercise_id) + ".py"  # as the page names it
    verdicts[arg] = judge_code(exercises[exercise_id], code, filename, runtime_sim.run_case, "sim")
json.dump(verdicts, sys.stdout)
