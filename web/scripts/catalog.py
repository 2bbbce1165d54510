"""Print the web app's catalog as JSON: every exercise learners see (by track), the verdict
and track titles.

Run by ``scripts/build.mjs`` with ``practice/`` on ``sys.path``; it uses the kernel's own loader,
so a malformed exercise fails the build with the loader's message.
"""

import json
import sys
from pathlib import Path

from cjudge.contract.verdicts import TITLES
from cjudge.exercise.exercises import CHAPTER, DIFFICULTIES, TRACKS, catalog_order, load_exercises


def entry(ex):
    return {
        "id": ex.id,
        "title": ex.title,
        "signature": ex.signature,
        "allowed": list(ex.allowed),
        "statement": {"en": ex.statement("en"), "zh": ex.statement("zh")},
        "starter": ex.starter,
        "hash": ex.content_hash,
        "track": ex.track,
        "order": ex.order,
        "prerequisites": list(ex.prerequisites),
        "difficulty": ex.difficulty,
        "chapter": [{"en": CHAPTER[c][0], "zh": CHAPTER[c][1]} for c in ex.chapter],
    }


def main(root: str) -> None:
    exercises = [entry(ex) for ex in catalog_order(load_exercises(Path(root)))]  # by track
    verdicts = {code.value: {"en": en, "zh": zh} for code, (en, zh) in TITLES.items()}
    tracks = {track: {"en": en, "zh": zh} for track, (en, zh) in TRACKS.items()}
    difficulties = {key: {"en": en, "zh": zh} for key, (en, zh) in DIFFICULTIES.items()}
    json.dump({"exercises": exercises, "verdicts": verdicts, "tracks": tracks,
               "difficulties": difficulties}, sys.stdout,
              ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
