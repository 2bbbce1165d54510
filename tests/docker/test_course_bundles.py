"""Each course platform's autograder bundle run the platform's way, in a container built from the
project's own base image: its directory layout, user and entry point. The reference gets full
marks, a wrong file a partial score, and each result file is checked against the platform's
documented fields (``tests/courses/schemas.py``).

* Gradescope: ``autograder.zip`` unzipped into ``/autograder/source``, ``setup.sh`` run as root
  when the image is built, then per submission ``/autograder/run_autograder`` (as root, from
  ``/autograder``) on ``/autograder/submission``, read from ``/autograder/results/results.json``.
* PrairieLearn: the bundle's ``grader/Dockerfile`` built, then per submission its
  ``info.json`` entry point on ``/grade/{serverFilesCourse,tests,student,data}``, networking off,
  read from ``/grade/results/results.json``.
* GitHub Classroom: the template repository checked out, owned by the ``runner`` user, the
  learner's file pushed, and the workflow's ``run`` steps run in order as ``runner`` with bash
  as Actions runs them; the grader step's ``result`` output is what the reporter decodes.

Every platform image starts from one image (``course-platform.Dockerfile``) holding the pinned
CPU torch: installing its wheel takes about two minutes here, so it is built once and tagged by a
hash of what goes into it (reused while that is unchanged); the bundles' own install steps run
on top of it, offline.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cjudge.courses import bundles
from tests.courses.common import EXERCISE, SOLUTION, WRONG, export
from tests.courses.schemas import SCHEMAS

HERE = Path(__file__).parent
REPO = HERE.parents[1]
BASE_IMAGE = "cjudge/base:bookworm-py311"
LEARNERS = {"reference": SOLUTION, "wrong": WRONG}
CASES = ["sample-4-ranks", "2-ranks-odd", "3-ranks", "5-ranks-float64", "8-ranks-mostly-padding",
         "8-ranks"]


def docker(*args: str, timeout: float = 900) -> str:
    """Run ``docker ARGS``; its stdout (the test fails with its output if it fails)."""
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"docker {args[0]}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done.stdout


def script(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, cwd=REPO, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="session")
def platform_image(docker_engine: None, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The image every platform's starts from (``course-platform.Dockerfile``), built only when
    no image of its hash exists."""
    script("docker/build-base.sh", BASE_IMAGE)
    local = REPO / "docker" / "local"
    staged = script("docker/prepare-local.sh").strip() == "wheel"
    context = tmp_path_factory.mktemp("course-platform")
    for sub, pattern in (("wheels", "torch-*.whl"), ("certs", "*.crt")):
        (context / sub).mkdir()
        for path in sorted((local / sub).glob(pattern)):
            shutil.copyfile(path, context / sub / path.name)
    dockerfile = HERE / "course-platform.Dockerfile"
    shutil.copyfile(dockerfile, context / "Dockerfile")
    args = {"BASE_IMAGE": BASE_IMAGE, "TORCH": f"{bundles.TORCH}+cpu",
            "TORCH_INDEX_URL": "" if staged else bundles.TORCH_INDEX,
            "KERNEL_DEPS": " ".join(bundles.kernel_requirements())}
    key = hashlib.sha256(dockerfile.read_bytes() + json.dumps(args).encode())
    key.update(docker("image", "inspect", "-f", "{{.Id}}", BASE_IMAGE).encode())
    for path in sorted(context.rglob("*")):
        if path.is_file():
            key.update(f"{path.relative_to(context)}:{path.stat().st_size}".encode())
    tag = f"cjudge/course-platform:{key.hexdigest()[:16]}"
    if subprocess.run(["docker", "image", "inspect", tag], capture_output=True).returncode != 0:
        docker("build", "-q", "-t", tag, *[a for k, v in args.items()
                                           for a in ("--build-arg", f"{k}={v}")], str(context),
               timeout=1800)
    return tag


@pytest.fixture
def image() -> Iterator[str]:
    """A fresh tag for a test's own image, removed afterwards."""
    tag = f"cjudge/course-test:{uuid.uuid4().hex[:12]}"
    yield tag
    subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


def submit(folder: Path, learner: Path) -> Path:
    """``folder`` holding the learner's file only, as ``EXERCISE.py``."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copyfile(learner, folder / f"{EXERCISE}.py")
    return folder


def passed(names: list[str], outcomes: list[bool], learner: str) -> None:
    """One test per case, in the exercise's order; the reference passes them all, the wrong file
    (no padding) only the cases whose size its ranks divide."""
    assert names == [f"{EXERCISE}: {case}" for case in CASES]
    assert [c for c, ok in zip(CASES, outcomes, strict=True) if ok] == (
        CASES if learner == "reference" else ["sample-4-ranks", "8-ranks"])


def test_gradescope(platform_image: str, image: str, tmp_path: Path) -> None:
    bundle = export("gradescope", tmp_path / "bundle")
    context = tmp_path / "context"
    with zipfile.ZipFile(bundle / "autograder.zip") as archive:
        for info in archive.infolist():  # as unzip does: the files with their modes
            archive.extract(info, context / "source")
            (context / "source" / info.filename).chmod(info.external_attr >> 16)
    (context / "Dockerfile").write_text(
        f"FROM {platform_image}\nCOPY source /autograder/source\n"
        "RUN /autograder/source/setup.sh"
        " && cp /autograder/source/run_autograder /autograder/run_autograder\n")
    docker("build", "-q", "-t", image, str(context))
    for learner, path in LEARNERS.items():
        submission, results = submit(tmp_path / "submission", path), tmp_path / learner
        results.mkdir()
        docker("run", "--rm", "--user", "root", "-w", "/autograder",
               "-v", f"{submission}:/autograder/submission",
               "-v", f"{results}:/autograder/results", image, "/autograder/run_autograder")
        out = SCHEMAS["gradescope"].model_validate_json(
            (results / "results.json").read_text(encoding="utf-8"))
        passed([t.name for t in out.tests], [t.status == "passed" for t in out.tests], learner)
        assert out.score == sum(t.score for t in out.tests) == (6 if learner == "reference" else 2)
        assert all(t.max_score == 1 and "/" in t.output for t in out.tests)
        assert [t.visibility for t in out.tests] == ["visible"] + ["after_due_date"] * 5
        assert [e.order for e in out.leaderboard] == (["asc", "asc"] if learner == "reference"
                                                      else [])


def test_prairielearn(platform_image: str, image: str, tmp_path: Path) -> None:
    bundle = export("prairielearn", tmp_path / "bundle")
    docker("build", "-q", "-t", image, "--build-arg", f"BASE_IMAGE={platform_image}",
           str(bundle / "grader"))
    info = json.loads((bundle / "questions" / EXERCISE / "info.json").read_text(encoding="utf-8"))
    entrypoint = info["externalGradingOptions"]["entrypoint"].split()
    for learner, path in LEARNERS.items():
        grade = tmp_path / learner
        submit(grade / "student", path)
        for folder in ("serverFilesCourse", "tests", "data"):
            (grade / folder).mkdir()
        (grade / "data" / "data.json").write_text('{"params": {}, "submitted_answers": {}}')
        docker("run", "--rm", "--network", "none", "-v", f"{grade}:/grade", image, *entrypoint)
        out = SCHEMAS["prairielearn"].model_validate_json(
            (grade / "results" / "results.json").read_text(encoding="utf-8"))
        passed([t.name for t in out.tests], [t.points == 1 for t in out.tests], learner)
        assert out.gradable and out.score == (1.0 if learner == "reference" else 2 / 6)
        assert all(t.max_points == 1 for t in out.tests)


def test_github_classroom(platform_image: str, image: str, tmp_path: Path) -> None:
    context = tmp_path / "context"
    repo = export("github", context / "repo")
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())
    steps = [s for s in workflow["jobs"]["run-autograding-tests"]["steps"] if "run" in s]
    grader = next(i for i, s in enumerate(steps) if s.get("name") == EXERCISE)
    (context / "steps").mkdir()
    for i, step in enumerate(steps):
        (context / "steps" / f"{i}.sh").write_text(step["run"])
    checkout = "/home/runner/work/course/course"
    (context / "Dockerfile").write_text(
        f"FROM {platform_image}\nCOPY repo {checkout}\nCOPY steps /steps\n"
        "RUN chown -R runner:runner /home/runner/work\n")
    docker("build", "-q", "-t", image, str(context))
    # each run step in its shell (bash --noprofile --norc -eo pipefail) with its own output file
    push = (f"set -e; mkdir -p $RUNNER_TEMP; cp /push/{EXERCISE}.py .; "
            f"for i in $(seq 0 {len(steps) - 1}); do export GITHUB_OUTPUT=$RUNNER_TEMP/out-$i; "
            ": > $GITHUB_OUTPUT; bash --noprofile --norc -eo pipefail /steps/$i.sh; done; "
            f"cat $RUNNER_TEMP/out-{grader}")
    for learner, path in LEARNERS.items():
        pushed = submit(tmp_path / learner, path)
        output = docker("run", "--rm", "--user", "runner", "-w", checkout,
                        "-e", "RUNNER_TEMP=/home/runner/work/_temp",
                        "-e", "PATH=/opt/cjudge/venv/bin:/usr/local/bin:/usr/bin:/bin",
                        "-v", f"{pushed}:/push:ro", image, "bash", "-c", push)
        key, _, value = output.strip().splitlines()[-1].partition("=")  # as the reporter reads it
        assert key == "result"
        out = SCHEMAS["github"].model_validate_json(base64.b64decode(value))
        passed([t.name for t in out.tests], [t.status == "pass" for t in out.tests], learner)
        assert out.max_score == 6 and out.status == ("pass" if learner == "reference" else "fail")
        assert sum(t.score for t in out.tests) == (6 if learner == "reference" else 2)
        assert all(t.filename == f"{EXERCISE}.py" for t in out.tests)
