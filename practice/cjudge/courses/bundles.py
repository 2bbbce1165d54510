"""``judge.py export PLATFORM ID… DIR``: a ready autograder for Gradescope, PrairieLearn or
GitHub Classroom (``docs/courses.md``).

Every bundle carries a copy of the grading kernel (installable: ``kernel/``), the exercises'
published files (never the reference or the wrong solutions: they never leave the judge) and the
platform's entry point, which runs :mod:`.autograde`. torch is the CPU build, pinned.
"""

from __future__ import annotations

import json
import re
import shutil
import tomllib
import uuid
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from .. import __version__
from ..cli.mathtext import CODE, MATH
from ..exercise.exercises import Exercise, is_private
from . import templates

TORCH = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
KERNEL = Path(__file__).resolve().parents[1]
#: the grader image the PrairieLearn questions name (push it under this name, or edit info.json)
PRAIRIELEARN_IMAGE = f"cjudge-grader:{__version__}"
#: what PrairieLearn's markdown reads in a statement: code (left as it is), a formula, a dollar
PL_MARKDOWN = re.compile(rf"(?P<code>{CODE.pattern})|(?P<math>{MATH.pattern})|(?P<dollar>\\?\$)",
                         re.S)


def kernel_requirements() -> list[str]:
    """The kernel's dependencies but torch (pinned apart): the checkout's ``pyproject.toml``,
    else the installed package's metadata."""
    pyproject = KERNEL.parents[1] / "pyproject.toml"
    if pyproject.is_file():
        wanted = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    else:
        wanted = [r for r in metadata.requires("collective-judge") or [] if "extra ==" not in r]
    return [r for r in wanted if not r.startswith("torch")]


def _fill(template: str, **fields: str) -> str:
    for name, value in {"TORCH": TORCH, "TORCH_INDEX": TORCH_INDEX, **fields}.items():
        template = template.replace(f"@{name}@", value)
    return template


def prairielearn_markdown(statement: str) -> str:
    r"""``statement`` for PrairieLearn's ``<markdown>``, which reads math between ``$…$`` and
    ``$$…$$`` (a backslash before ``(`` or ``[`` is only Markdown's escape there): ``\(x\)`` is
    ``$x$``, ``\[x\]`` is ``$$x$$`` (on lines of its own when it stands alone on its line, as
    a display block), a literal ``$`` (or ``\$``) is ``\$``; code is left as it is."""
    def piece(match: re.Match[str]) -> str:
        if match["code"]:
            return match["code"]
        if match["dollar"]:
            return "\\$"
        formula = MATH.fullmatch(match["math"])
        assert formula is not None
        inline, display = formula.groups()
        if inline is not None:
            return f"${inline.strip()}$"
        start = statement.rfind("\n", 0, match.start()) + 1
        indent, rest = statement[start:match.start()], statement[match.end():].partition("\n")[0]
        if indent.strip() or rest.strip():
            return f"$${display.strip()}$$"
        return f"$$\n{indent}{display.strip()}\n{indent}$$"

    return PL_MARKDOWN.sub(piece, statement)


def _write(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if executable:
        path.chmod(0o755)


def copy_kernel(dest: Path) -> None:
    """The kernel as an installable project at ``dest`` (``pip install dest``)."""
    shutil.copytree(KERNEL, dest / "cjudge", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    deps = ", ".join(json.dumps(r) for r in kernel_requirements())
    _write(dest / "pyproject.toml", f"""\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "cjudge-kernel"
version = "{__version__}"
requires-python = ">=3.11"
dependencies = [{deps}]

[tool.setuptools.packages.find]
include = ["cjudge*"]

[tool.setuptools.package-data]
"*" = ["*.json"]
""")


def copy_exercises(exercises: list[Exercise], dest: Path) -> None:
    """Each exercise's published files into ``dest/ID``."""
    for ex in exercises:
        for path in sorted(ex.path.rglob("*")):
            relative = path.relative_to(ex.path)
            if path.is_file() and "__pycache__" not in relative.parts and not is_private(relative):
                (dest / ex.id / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest / ex.id / relative)


def gradescope(exercises: list[Exercise], out: Path) -> None:
    """``setup.sh``, ``run_autograder``, ``kernel/``, ``exercises/`` and all of them zipped as
    ``autograder.zip`` (what Gradescope takes)."""
    ids = " ".join(ex.id for ex in exercises)
    _write(out / "setup.sh", _fill(templates.GRADESCOPE_SETUP), executable=True)
    _write(out / "run_autograder", _fill(templates.GRADESCOPE_RUN, IDS=ids, FILES=", ".join(
        f"{ex.id}.py" for ex in exercises)), executable=True)
    copy_kernel(out / "kernel")
    copy_exercises(exercises, out / "exercises")
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != "autograder.zip")
    with zipfile.ZipFile(out / "autograder.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(out).as_posix())


def question_uuid(exercise_id: str, course: str | None) -> uuid.UUID:
    """A PrairieLearn question's UUID: ``uuid5(uuid5(NAMESPACE_URL, "cjudge:course:COURSE"), ID)``,
    the same on every export for that course and another in another course; without a course,
    ``uuid5(NAMESPACE_URL, "cjudge:ID")``, the UUID exports had before courses were named."""
    if course is None:
        return uuid.uuid5(uuid.NAMESPACE_URL, f"cjudge:{exercise_id}")
    return uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_URL, f"cjudge:course:{course}"), exercise_id)


def prairielearn(exercises: list[Exercise], out: Path, course: str | None = None) -> None:
    """The grader image (``grader/``: ``Dockerfile``, ``grade``, ``kernel/``, ``exercises/``) and a
    question per exercise (``questions/ID``: ``info.json``, ``question.html``, ``starter.py``),
    its UUID keyed by ``course`` (:func:`question_uuid`)."""
    grader = out / "grader"
    _write(grader / "Dockerfile", _fill(templates.PRAIRIELEARN_DOCKERFILE,
                                        IDS=", ".join(ex.id for ex in exercises)))
    _write(grader / "grade", templates.PRAIRIELEARN_GRADE, executable=True)
    copy_kernel(grader / "kernel")
    copy_exercises(exercises, grader / "exercises")
    for ex in exercises:
        question = out / "questions" / ex.id
        timeout = min(600, 60 + round(ex.time_limit_s * len(ex.cases)))  # PL's most: 600 s
        info = {"uuid": str(question_uuid(ex.id, course)),
                "title": ex.title["en"], "topic": "Collective communication",
                "tags": ["cjudge", ex.id], "type": "v3", "singleVariant": True,
                "gradingMethod": "External",
                "externalGradingOptions": {"enabled": True, "image": PRAIRIELEARN_IMAGE,
                                           "entrypoint": f"/opt/cjudge/grade {ex.id}",
                                           "timeout": timeout}}
        _write(question / "info.json", json.dumps(info, indent=2, ensure_ascii=False) + "\n")
        statement = prairielearn_markdown(ex.statement("en"))
        _write(question / "question.html", _fill(templates.PRAIRIELEARN_QUESTION, ID=ex.id,
                                                 STATEMENT=statement))
        shutil.copyfile(ex.path / "starter.py", question / "starter.py")


def github(exercises: list[Exercise], out: Path) -> None:
    """A template repository: ``.github/workflows/classroom.yml``, ``.cjudge/`` (kernel and
    exercises), each exercise's starter as ``ID.py`` and its statements in ``README.md`` and
    ``README.zh.md``."""
    runners = {ex.id: ex.id.replace("-", "_") for ex in exercises}
    steps = "".join(_fill(templates.GITHUB_STEP, ID=i, RUNNER=r) for i, r in runners.items())
    env = "".join(f'          {r.upper()}_RESULTS: "${{{{ steps.{r}.outputs.result }}}}"\n'
                  for r in runners.values())
    _write(out / ".github" / "workflows" / "classroom.yml", _fill(
        templates.GITHUB_WORKFLOW, STEPS=steps, ENV=env, RUNNERS=",".join(runners.values())))
    copy_kernel(out / ".cjudge" / "kernel")
    copy_exercises(exercises, out / ".cjudge" / "exercises")
    for ex in exercises:
        shutil.copyfile(ex.path / "starter.py", out / f"{ex.id}.py")
    for name, lang in (("README.md", "en"), ("README.zh.md", "zh")):
        _write(out / name, "\n\n".join(ex.statement(lang) for ex in exercises))


BUNDLES: dict[str, Callable[[list[Exercise], Path], None]] = {
    "gradescope": gradescope, "prairielearn": prairielearn, "github": github}


def export(platform: str, exercises: list[Exercise], out: Path, course: str | None = None) -> None:
    """Write ``platform``'s autograder bundle for ``exercises`` into ``out`` (``course``: the
    PrairieLearn course its questions' UUIDs are keyed by)."""
    out.mkdir(parents=True, exist_ok=True)
    if platform == "prairielearn":
        prairielearn(exercises, out, course)
    else:
        BUNDLES[platform](exercises, out)
