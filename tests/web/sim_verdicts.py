"""Print, as JSON, the CPython simulated runtime's verdict for each exercise file named on the
command line (``exercise_id:path``): what the browser's judge must reproduce."""

import json
import sys
from pathlib import Path

from cjudge import runtime_sim
from cjudge.exercises import default_root, load_exercises
from cjudge.judge import judge_code

exercises = load_exercises(default_root())
verdicts = {}
for arg in sys.argv[1:]:
    exercise_id, path = arg.split(":", 1)
    code = Path(path).read_text(encoding="utf-8")
    verdicts[arg] = judge_code(exercises[exercise_id], code, "solution.py", runtime_sim.run_case, "sim")
json.dump(verdicts, sys.stdout)
