"""The package map that pyproject.toml cannot say: the repository's ``exercises/`` folder ships
inside the ``cjudge`` package as ``cjudge/bundled_exercises`` (read through importlib.resources),
beside the packages found under ``practice/`` (cjudge) and the root (server)."""

from pathlib import Path

from setuptools import find_namespace_packages, setup

KERNEL = find_namespace_packages("practice", include=["cjudge*"])
SERVER = find_namespace_packages(".", include=["server*"])
#: each folder of exercises/ as a data package, so that the wheel carries it (its files:
#: [tool.setuptools.package-data] in pyproject.toml)
EXERCISES = ["cjudge.bundled_exercises", *sorted(
    "cjudge.bundled_exercises." + ".".join(d.relative_to("exercises").parts)
    for d in Path("exercises").rglob("*") if d.is_dir() and "__pycache__" not in d.parts)]

setup(
    packages=[*KERNEL, *SERVER, *EXERCISES],
    package_dir={**{p: "practice/" + p.replace(".", "/") for p in KERNEL},
                 "cjudge.bundled_exercises": "exercises"},
)
