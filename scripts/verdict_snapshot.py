#!/usr/bin/env python3
"""Every exercise's reference and known-wrong files judged on the simulated runtime, one verdict
JSON per file, to check that a refactoring leaves verdicts byte-identical.

    .venv/bin/python scripts/verdict_snapshot.py write OUT_DIR [EXERCISE ...]
    .venv/bin/python scripts/verdict_snapshot.py compare BEFORE_DIR AFTER_DIR

``write`` judges every case (``all_cases``) and explores a failure as the CLI does (the
reference's run, the smallest failing case). What differs between two runs of the same code is
left out or put in one order: ``wall_ms``, the only measured time in a simulated verdict; the
timeline's message and collective ids, which follow the order the ranks' threads happened to
be matched in (each is named by what it is instead, and the rows sorted). ``compare`` lists the
files whose verdicts differ and exits 1 if any does.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "practice"))

from cjudge.exercise.exercises import Exercise, default_root, load_exercises  # noqa: E402
from cjudge.grading.submission import judge_code  # noqa: E402
from cjudge.sim.runtime import run_case  # noqa: E402

#: measured, so never the same twice
UNSTABLE = {"wall_ms"}


def stable(value: Any) -> Any:
    """``value`` without its measured fields, its timelines in one order, at any depth."""
    if isinstance(value, dict):
        return {k: stable(timeline(v) if k == "timeline" else v) for k, v in value.items()
                if k not in UNSTABLE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


def timeline(view: dict[str, Any]) -> dict[str, Any]:
    """A case's timeline with each message and collective named by what it is (ends, tag,
    bytes, step; kind, ranks, step) instead of its id, and its rows that follow the switch's
    order (messages, collectives, pending requests, refusals, waits, deadlock edges, groups)
    sorted."""
    if "messages" not in view:
        return view
    names = {("message", m["id"]): f"{m['src']}->{m['dst']}#{m['tag']}:{m['bytes']}@{m['step']}"
             for m in view["messages"]}
    names.update({("collective", c["id"]): f"{c['kind']}{c['ranks']}@{c['step']}"
                  for c in view["collectives"]})
    out = dict(view)
    for key, kind in (("messages", "message"), ("collectives", "collective")):
        out[key] = [{**row, "id": names[(kind, row["id"])]} for row in view[key]]
    # a message's group by its members: groups are numbered in the order the ranks' threads
    # happened to create them
    out["messages"] = [{**row, "group": view["groups"][row["group"]]} if "group" in row else row
                       for row in out["messages"]]
    for key in ("messages", "collectives", "pending", "refused", "waits", "deadlock"):
        out[key] = sorted(out[key], key=lambda row: json.dumps(row, sort_keys=True))
    out["groups"] = sorted(view["groups"])  # numbered in the order the ranks created them
    out["critical"] = [{**c, "id": names.get((c["kind"], c["id"]))} for c in view["critical"]]
    if view.get("wrong") and view["wrong"].get("last_recv") is not None:  # among a step's
        # messages into the rank, the last one matched: its step is what the run fixes
        name = names.get(("message", view["wrong"]["last_recv"]), "")
        out["wrong"] = {**view["wrong"], "last_recv": name.rpartition("@")[2]}
    return out


def files(exercise_ids: list[str]) -> list[tuple[str, Path]]:
    """(exercise id, file) for each reference and known-wrong file."""
    out = []
    for exercise_id, ex in sorted(exercises().items()):
        if exercise_ids and exercise_id not in exercise_ids:
            continue
        out += [(exercise_id, ex.path / "solution.py")]
        out += [(exercise_id, p) for p in sorted((ex.path / "wrong").glob("*.py"))]
    return out


@cache
def exercises() -> dict[str, Exercise]:
    """The repo's exercises, loaded once per process."""
    return load_exercises(default_root())


def judge_one(item: tuple[str, Path, Path]) -> str:
    """Judge one file and write its verdict under ``out``; its output file's name."""
    exercise_id, path, out = item
    ex = exercises()[exercise_id]
    verdict = judge_code(ex, path.read_text(encoding="utf-8"), path.name, run_case, "sim",
                         all_cases=True, explore=run_case)
    name = f"{exercise_id}__{path.stem}.json"
    text = json.dumps(stable(verdict), ensure_ascii=False, indent=1, sort_keys=True)
    (out / name).write_text(text + "\n", encoding="utf-8")
    return name


def write(out: Path, exercise_ids: list[str]) -> None:
    """One verdict file per judged file in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    items = [(e, p, out) for e, p in files(exercise_ids)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name in pool.map(judge_one, items):
            print(name, flush=True)


def compare(before: Path, after: Path) -> int:
    """Print the files that differ (or exist on one side only); 1 if any does."""
    names = sorted({p.name for p in before.glob("*.json")} | {p.name for p in after.glob("*.json")})
    differ = [n for n in names if not (before / n).is_file() or not (after / n).is_file()
              or (before / n).read_bytes() != (after / n).read_bytes()]
    for name in differ:
        print("differs:", name)
    print(f"{len(names)} files compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "write":
        write(Path(rest[0]), rest[1:])
    elif command == "compare":
        sys.exit(compare(Path(rest[0]), Path(rest[1])))
    else:
        sys.exit(__doc__)
