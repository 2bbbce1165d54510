"""What the browser must reproduce, from the CPython simulated runtime, as JSON on stdout.

``sim_verdicts.py [--time-limit-scale=K] exercise_id:path ...``: the verdict of each exercise
file, the exercises' time limits multiplied by K (1 unless given).
``sim_verdicts.py --raw`` with ``[{"job": ..., "spec": ...}, ...]`` on stdin: each case's
:class:`~cjudge.contract.protocol.RawCase`.
"""

import dataclasses
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from cjudge.contract.verdict_json import dumps
from cjudge.exercise.exercises import PRIVATE_FILES, default_root, load_exercises
from cjudge.grading.submission import judge_code
from cjudge.sim import runtime as runtime_sim

if sys.argv[1:] == ["--raw"]:
    json.dump([runtime_sim.run_case(c["job"], c["spec"]) for c in json.load(sys.stdin)], sys.stdout)
    sys.exit()
# the browser holds the exercises' published files only: no reference to compare a run with
published = Path(tempfile.mkdtemp(prefix="cjudge-published-")) / "exercises"
shutil.copytree(default_root(), published, ignore=shutil.ignore_patterns(*PRIVATE_FILES))
args = sys.argv[1:]
scale = float(args.pop(0).split("=", 1)[1]) if args and args[0].startswith("--time-limit-scale=") else 1
exercises = {k: dataclasses.replace(v, time_limit_s=v.time_limit_s * scale)
             for k, v in load_exercises(published, published=True).items()}
verdicts = {}
for arg in args:
    exercise_id, path = arg.split(":", 1)
    code = Path(path).read_text(encoding="utf-8")
    filename = re.sub(r"[^A-Za-z0-9]+", "_", exercise_id) + ".py"  # as the page names it
    # the browser's runtime is the simulated one, so it explores a failure as the CLI does
    verdicts[arg] = judge_code(exercises[exercise_id], code, filename, runtime_sim.run_case, "sim",
                               explore=runtime_sim.run_case)
shutil.rmtree(published.parent)
sys.stdout.write(dumps(verdicts))  # as the browser writes it: NaN encoded
