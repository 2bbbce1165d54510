"""``judge.py test --report`` and ``judge.py export``: each platform's bundle run its platform's
way (its directory layout and entry point, in a temporary folder standing in for ``/autograder``
or ``/grade``), grading the reference (full score) and a wrong file (partial score), each result
checked against the platform's documented fields."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from cjudge.exercises import default_root
from tests.kernel.test_cli import judge_cli

from .schemas import SCHEMAS

EXERCISE = "allreduce-compose"
SOLUTION = default_root() / EXERCISE / "solution.py"
#: fails the cases whose size n does not divide, passes the others: a partial score
WRONG = default_root() / EXERCISE / "wrong" / "no_padding.py"


def export(platform: str, out: Path) -> Path:
    run = judge_cli("export", platform, EXERCISE, str(out))
    assert run.returncode == 0, run.stderr
    return out


def run_script(script: Path, kernel: Path, **env: str) -> None:
    """Run a bundle's entry point with this Python and the bundle's own kernel (at ``kernel``)."""
    env = {**os.environ, "CJUDGE_PYTHON": sys.executable, "PYTHONPATH": str(kernel), **env}
    run = subprocess.run([str(script), *([EXERCISE] if script.name == "grade" else [])],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr


def test_report_writes_the_platforms_result_file(tmp_path: Path) -> None:
    report = tmp_path / "results.json"
    run = judge_cli("test", EXERCISE, str(WRONG), "--report", "gradescope", str(report))
    assert run.returncode == 1, run.stderr
    out = SCHEMAS["gradescope"].model_validate_json(report.read_text(encoding="utf-8"))
    assert len(out.tests) == 6 and 0 < out.score < 6  # every case ran, not only until the first
    bad = judge_cli("test", EXERCISE, str(WRONG), "--report", "moodle", str(report))
    assert bad.returncode == 2 and "unknown platform 'moodle'" in bad.stderr


def test_gradescope_bundle(tmp_path: Path) -> None:
    bundle = export("gradescope", tmp_path / "bundle")
    with zipfile.ZipFile(bundle / "autograder.zip") as archive:
        names = archive.namelist()
        assert {"setup.sh", "run_autograder", "kernel/pyproject.toml"} <= set(names)
        assert not [n for n in names if n.endswith("solution.py") or "/wrong/" in n]
        assert "torch==2.13.0" in archive.read("setup.sh").decode()
    root = tmp_path / "autograder"  # Gradescope's layout: source/ is the zip, submission/
    with zipfile.ZipFile(bundle / "autograder.zip") as archive:
        archive.extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    site = tmp_path / "site"  # the kernel installed from the bundle, as setup.sh does (offline)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--no-build-isolation", "--target", str(site), str(root / "source" / "kernel")],
                   check=True, capture_output=True, timeout=300)
    scores = []
    for learner in (SOLUTION, WRONG):
        shutil.rmtree(root / "submission", ignore_errors=True)
        (root / "submission").mkdir()
        shutil.copyfile(learner, root / "submission" / f"{EXERCISE}.py")
        run_script(root / "source" / "run_autograder", site, CJUDGE_AUTOGRADER_ROOT=str(root))
        out = SCHEMAS["gradescope"].model_validate_json(
            (root / "results" / "results.json").read_text(encoding="utf-8"))
        scores.append(out.score)
        assert bool(out.leaderboard) == (learner == SOLUTION)
    assert scores[0] == 6 and 0 < scores[1] < 6


def test_prairielearn_bundle(tmp_path: Path) -> None:
    bundle = export("prairielearn", tmp_path / "bundle")
    info = json.loads((bundle / "questions" / EXERCISE / "info.json").read_text(encoding="utf-8"))
    options = info["externalGradingOptions"]
    assert options["enabled"] and options["entrypoint"] == f"/opt/cjudge/grade {EXERCISE}"
    assert 0 < options["timeout"] <= 600 and info["gradingMethod"] == "External"
    assert 'file-name="allreduce-compose.py"' in (
        bundle / "questions" / EXERCISE / "question.html").read_text(encoding="utf-8")
    assert "COPY grade /opt/cjudge/grade" in (bundle / "grader" / "Dockerfile").read_text()
    root = tmp_path / "grade"  # PrairieLearn's layout: /grade/student, /grade/results
    scores = []
    for learner in (SOLUTION, WRONG):
        shutil.rmtree(root, ignore_errors=True)
        (root / "student").mkdir(parents=True)
        shutil.copyfile(learner, root / "student" / f"{EXERCISE}.py")
        run_script(bundle / "grader" / "grade", bundle / "grader" / "kernel",
                   CJUDGE_GRADE_ROOT=str(root))
        out = SCHEMAS["prairielearn"].model_validate_json(
            (root / "results" / "results.json").read_text(encoding="utf-8"))
        assert out.gradable
        scores.append(out.score)
    assert scores[0] == 1.0 and 0 < scores[1] < 1


def test_github_classroom_template(tmp_path: Path) -> None:
    repo = export("github", tmp_path / "repo")
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    grader = next(s for s in steps if s.get("name") == EXERCISE)
    reporter = steps[-1]
    assert reporter["uses"].startswith("classroom-resources/autograding-grading-reporter@")
    runner = reporter["with"]["runners"]
    assert runner == grader["id"] and f"{runner.upper()}_RESULTS" in reporter["env"]
    shutil.copyfile(WRONG, repo / f"{EXERCISE}.py")  # the learner's push
    output = tmp_path / "github_output"
    env = {**os.environ, "PYTHONPATH": str(repo / ".cjudge" / "kernel"),
           "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(tmp_path),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    run = subprocess.run(["bash", "-e", "-c", grader["run"]], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    key, _, value = output.read_text().strip().partition("=")  # as the reporter decodes it
    assert key == "result"
    out = SCHEMAS["github"].model_validate_json(base64.b64decode(value))
    assert out.status == "fail" and out.max_score == 6
    assert 0 < sum(t.score for t in out.tests) < 6
