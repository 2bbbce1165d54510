"""The files of the autograder bundles (:mod:`.bundles` fills the ``@NAME@`` fields)."""

GRADESCOPE_SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: a Python >= 3.11
# (the image's own when it has one with venv, else from apt), the CPU build of torch (pinned) and
# the grading kernel (cjudge) in the virtual environment /opt/cjudge/venv.
set -euo pipefail
VENV=/opt/cjudge/venv
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \\
    || ! python3 -m venv "$VENV" 2>/dev/null; then
  rm -rf "$VENV"
  apt-get update
  if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    apt-get install -y python3-venv; PY=python3
  else
    apt-get install -y python3.11 python3.11-venv; PY=python3.11
  fi
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install --no-cache-dir --index-url @TORCH_INDEX@ "@TORCH@"
"$VENV/bin/pip" install --no-cache-dir /autograder/source/kernel
"""

GRADESCOPE_RUN = """\
#!/usr/bin/env bash
# Gradescope runs this from /autograder: the learner's files are in submission/ (@FILES@), the
# result goes to results/results.json. CJUDGE_AUTOGRADER_ROOT and CJUDGE_PYTHON stand in for
# /autograder and the interpreter setup.sh installed, to try the bundle elsewhere.
set -euo pipefail
ROOT="${CJUDGE_AUTOGRADER_ROOT:-/autograder}"
export CJUDGE_WARM=0
exec "${CJUDGE_PYTHON:-/opt/cjudge/venv/bin/python}" -m cjudge.courses.autograde gradescope \\
  --exercises "$ROOT/source/exercises" --submission "$ROOT/submission" \\
  --results "$ROOT/results/results.json" @IDS@
"""

PRAIRIELEARN_DOCKERFILE = """\
# The PrairieLearn external grader of @IDS@ (docs/courses.md): Python, the CPU build of torch
# (pinned) and the grading kernel in the virtual environment /opt/cjudge/venv, the exercises
# (without their reference solutions) and the entry point /opt/cjudge/grade. Build and push it
# under the name the questions' info.json give. It runs as root, as PrairieLearn's graders do.
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}
RUN python3 -m venv /opt/cjudge/venv
ENV PATH=/opt/cjudge/venv/bin:$PATH
RUN pip install --no-cache-dir --index-url @TORCH_INDEX@ "@TORCH@"
COPY kernel /opt/cjudge/kernel
RUN pip install --no-cache-dir /opt/cjudge/kernel
COPY exercises /opt/cjudge/exercises
COPY grade /opt/cjudge/grade
RUN chmod 0755 /opt/cjudge/grade
"""

PRAIRIELEARN_GRADE = """\
#!/usr/bin/env bash
# PrairieLearn's entry point, "/opt/cjudge/grade ID": the learner's file is /grade/student/ID.py,
# the result goes to /grade/results/results.json. CJUDGE_GRADE_ROOT and CJUDGE_PYTHON stand in
# for /grade and the image's python, to try it elsewhere.
set -euo pipefail
ROOT="${CJUDGE_GRADE_ROOT:-/grade}"
HERE="$(cd "$(dirname "$0")" && pwd)"
export CJUDGE_WARM=0
exec "${CJUDGE_PYTHON:-python3}" -m cjudge.courses.autograde prairielearn \\
  --exercises "$HERE/exercises" --submission "$ROOT/student" \\
  --results "$ROOT/results/results.json" "$@"
"""

PRAIRIELEARN_QUESTION = """\
<pl-question-panel>
<markdown>
@STATEMENT@
</markdown>
</pl-question-panel>

<pl-file-editor file-name="@ID@.py" ace-mode="ace/mode/python" source-file-name="starter.py">
</pl-file-editor>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""

GITHUB_WORKFLOW = """\
# GitHub Classroom autograding with cjudge (docs/courses.md). Each exercise's grader step grades
# ID.py and hands the reporter its result (base64 JSON, the step's `result` output); the
# reporter reads each runner's ID_RESULTS variable and sends the points to GitHub Classroom.
name: Autograding Tests
on:
  - push
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    name: Autograding Tests
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the judge
        run: |
          pip install --index-url @TORCH_INDEX@ "@TORCH@"
          pip install ./.cjudge/kernel
@STEPS@      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
@ENV@        with:
          runners: @RUNNERS@
"""

GITHUB_STEP = """\
      - name: @ID@
        id: @RUNNER@
        run: |
          CJUDGE_WARM=0 python -m cjudge.courses.autograde github --exercises .cjudge/exercises \\
            --submission . --results "$RUNNER_TEMP/@RUNNER@.json" @ID@
          echo "result=$(base64 -w0 "$RUNNER_TEMP/@RUNNER@.json")" >> "$GITHUB_OUTPUT"
"""
