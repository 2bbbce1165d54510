"""The learner's git-ignored workspace: their copy of each starter and their last verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path

#: practice/workspace/ (git-ignored); CJUDGE_WORKSPACE moves it (the tests do)
WORKSPACE = Path(os.environ.get("CJUDGE_WORKSPACE")
                 or Path(__file__).resolve().parents[2] / "workspace")


def file_for(exercise_id: str) -> Path:
    """Where ``start`` puts the learner's copy of an exercise's starter."""
    return WORKSPACE / f"{exercise_id.replace('-', '_')}.py"


def _state_path() -> Path:
    return WORKSPACE / ".state.json"


def load_state() -> dict[str, str]:
    """Each exercise's last verdict in the workspace."""
    try:
        return json.loads(_state_path().read_text())
    except (OSError, ValueError):
        return {}


def remember(exercise_id: str, verdict: str) -> None:
    """Keep the last verdict of an exercise (``list`` shows it)."""
    state = load_state()
    if state.get(exercise_id) == "accepted" and verdict != "accepted":
        state[exercise_id + ":last"] = verdict
    else:
        state[exercise_id] = verdict
    WORKSPACE.mkdir(parents=True, exist_ok=True)
    _state_path().write_text(json.dumps(state, indent=1))
