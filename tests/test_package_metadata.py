"""The package's metadata, what a registry page shows: valid ``[project]`` fields, the README as
the long description, and a Python classifier for ``requires-python``'s floor."""

from __future__ import annotations

from pathlib import Path

import pytest
from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parents[1]


def test_metadata_is_valid_and_true_to_the_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VALIDATE_PYPROJECT_NO_NETWORK", "1")  # never fetch PyPI's classifier list
    # validated against the schema; not expanded: the packages are setup.py's to say
    project = read_configuration(ROOT / "pyproject.toml", expand=False)["project"]
    assert (ROOT / project["readme"]).read_text(encoding="utf-8").startswith("# Collective judge")
    floor = project["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {floor}" in project["classifiers"]
    assert project["keywords"]
