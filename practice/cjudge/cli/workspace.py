"""The learner's workspace: their copy of each starter and their last verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import cast

import platformdirs

#: the variable that chooses the workspace (``--workspace`` sets it; the tests do too)
ENV = "CJUDGE_WORKSPACE"
#: the source checkout's folder beside ``cjudge`` (``practice/``, with ``judge.py`` in it)
CHECKOUT = Path(__file__).resolve().parents[2]


def root() -> Path:
    """Where the learner's files go: ``$CJUDGE_WORKSPACE`` if set; else, run from a source
    checkout, its git-ignored ``practice/workspace/``; else (an installed package) the user's
    data directory, e.g. ``~/.local/share/collective-judge/workspace`` — never the package's."""
    chosen = os.environ.get(ENV)
    if chosen:
        return Path(chosen)
    if CHECKOUT.name == "practice" and (CHECKOUT / "judge.py").is_file():
        return CHECKOUT / "workspace"
    return platformdirs.user_data_path("collective-judge", appauthor=False) / "workspace"


def file_for(exercise_id: str) -> Path:
    """Where ``start`` puts the learner's copy of an exercise's starter."""
    return root() / f"{exercise_id.replace('-', '_')}.py"


def _state_path() -> Path:
    return root() / ".state.json"


def load_state() -> dict[str, str]:
    """Each exercise's last verdict in the workspace."""
    try:
        return cast(dict[str, str], json.loads(_state_path().read_text()))
    except (OSError, ValueError):
        return {}


def remember(exercise_id: str, verdict: str) -> None:
    """Keep the last verdict of an exercise (``list`` shows it)."""
    state = load_state()
    if state.get(exercise_id) == "accepted" and verdict != "accepted":
        state[exercise_id + ":last"] = verdict
    else:
        state[exercise_id] = verdict
    _state_path().parent.mkdir(parents=True, exist_ok=True)
    _state_path().write_text(json.dumps(state, indent=1))
