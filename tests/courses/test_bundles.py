"""``judge.py test --report`` and what ``judge.py export`` writes for each platform. Each bundle
is run its platform's way, in a container, by ``tests/docker/test_course_bundles.py``."""

from __future__ import annotations

import json
import uuid
import zipfile
from pathlib import Path

import yaml

from cjudge.courses.bundles import prairielearn_markdown
from tests.cli.test_cli import judge_cli

from .common import EXERCISE, WRONG, export
from .schemas import SCHEMAS


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
        for script in ("setup.sh", "run_autograder"):  # unzip restores the executable bits
            assert archive.getinfo(script).external_attr >> 16 & 0o111 == 0o111


def test_prairielearn_bundle(tmp_path: Path) -> None:
    bundle = export("prairielearn", tmp_path / "bundle")
    info = json.loads((bundle / "questions" / EXERCISE / "info.json").read_text(encoding="utf-8"))
    options = info["externalGradingOptions"]
    assert options["enabled"] and options["entrypoint"] == f"/opt/cjudge/grade {EXERCISE}"
    assert 0 < options["timeout"] <= 600 and info["gradingMethod"] == "External"
    assert 'file-name="allreduce-compose.py"' in (
        bundle / "questions" / EXERCISE / "question.html").read_text(encoding="utf-8")
    dockerfile = (bundle / "grader" / "Dockerfile").read_text()
    assert "COPY grade /opt/cjudge/grade" in dockerfile and "torch==2.13.0" in dockerfile
    assert not list((bundle / "grader" / "exercises").rglob("solution.py"))


def test_prairielearn_question_writes_math_as_its_markdown_reads_it(tmp_path: Path) -> None:
    bundle = export("prairielearn", tmp_path / "bundle")
    html = (bundle / "questions" / EXERCISE / "question.html").read_text(encoding="utf-8")
    assert "\\(" not in html and "\\[" not in html  # Markdown would read them as ( and [
    assert "of $N$ elements on every one of the $n$ ranks" in html
    assert "\n$$\n2(n-1)\\left\\lceil \\frac{N}{n} \\right\\rceil" in html  # a display block


def test_prairielearn_markdown_escapes_dollars_and_leaves_code() -> None:
    statement = ("Pay \\$5 or $6 for \\(x_i\\), not `\\(y\\) $HOME`; mid \\[ z \\] line\n"
                 "  \\[ T \\le 1 \\]\n```sh\necho $PATH \\[w\\]\n```\n")
    assert prairielearn_markdown(statement) == (
        "Pay \\$5 or \\$6 for $x_i$, not `\\(y\\) $HOME`; mid $$z$$ line\n"
        "  $$\n  T \\le 1\n  $$\n```sh\necho $PATH \\[w\\]\n```\n")


def test_prairielearn_question_uuids_are_each_courses_own(tmp_path: Path) -> None:
    def question_uuid(name: str, *options: str) -> str:
        bundle = export("prairielearn", tmp_path / name, *options)
        info = (bundle / "questions" / EXERCISE / "info.json").read_text(encoding="utf-8")
        return str(json.loads(info)["uuid"])

    first, unnamed = question_uuid("a", "--course", "cs598-fall"), question_uuid("none")
    assert question_uuid("a-again", "--course", "cs598-fall") == first  # PL keeps its history
    assert question_uuid("b", "--course", "TAM 212") not in (first, unnamed)
    assert unnamed == str(uuid.uuid5(uuid.NAMESPACE_URL, f"cjudge:{EXERCISE}"))  # as before
    wrong = judge_cli("export", "gradescope", EXERCISE, str(tmp_path / "gs"), "--course", "x")
    assert wrong.returncode == 2 and "--course" in wrong.stderr


def test_github_classroom_template(tmp_path: Path) -> None:
    repo = export("github", tmp_path / "repo")
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    grader = next(s for s in steps if s.get("name") == EXERCISE)
    reporter = steps[-1]
    assert reporter["uses"].startswith("classroom-resources/autograding-grading-reporter@")
    runner = reporter["with"]["runners"]
    assert runner == grader["id"] and f"{runner.upper()}_RESULTS" in reporter["env"]
    assert (repo / f"{EXERCISE}.py").read_text() == (repo / ".cjudge" / "exercises" / EXERCISE /
                                                     "starter.py").read_text()
