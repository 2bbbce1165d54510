"""Score the mistake corpus's messages on the five questions of issue 23, 0–2 each, by rule.

    .venv/bin/python -m tests.mistakes.score [--files] [EXERCISE_DIR ...]

Each file is judged as the corpus test judges it (simulated runtime, the reference's run as
evidence); its failing case's message is scored:

* **verdict**: 2 if the verdict is the declared one and agrees with what gloo did, else 0;
* **located**: 1 for a line of the learner's code (``line N``), 1 for a rank and a step, call,
  send or receive (``isend`` and ``irecv`` are named calls too), element or round of it;
* **cause**: the share of the file's ``# names:`` parts in the English message (the cause as
  its author wrote it down before reading the message): 2 all, 1 at least half, 0 fewer;
* **advice**: 2 unless the message names a call the exercise forbids, blames a missed wait the
  file does not have, or offers the old one-size menu ("a tree, recursive doubling, or one
  message"); then 0;
* **zh**: 1 if every ``# names_zh:`` part is in the Chinese message, 1 if every number of the
  English message is in the Chinese one and the Chinese has no English sentence (four English
  words in a row, code names aside) of the judge's own.

Prints one row per exercise (means) and the corpus's means; ``--files`` one row per file;
exercise folders given (``ring_allreduce``) score only those.
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

from .corpus import AGREES, FILES, gloo_record, header
from .test_mistakes import failing_case, forbidden_calls

QUESTIONS = ("verdict", "located", "cause", "advice", "zh")
MENU = "a tree, recursive doubling, or one message"
#: four English words in a row (identifiers with _ or digits are code, not prose)
ENGLISH = re.compile(r"\b[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}\b")
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?")


def _share(parts: list[str], text: str) -> int:
    found = sum(1 for p in parts if p in text)
    return 2 if found == len(parts) else 1 if 2 * found >= len(parts) else 0


def score(path: Path) -> dict[str, int]:
    """The file's five scores."""
    code = path.read_text(encoding="utf-8")
    result, case = failing_case(path)
    en, zh = case["message"], case["message_zh"]
    verdict = result["verdict"]
    names = header(code, "names")
    wrong_wait = "never waited" in en and not any("never waited" in p for p in names)
    prose = [m for m in ENGLISH.findall(zh) if not re.search(r"[a-z]+_[a-z]|\.py|torch|dist\.", m)]
    numbers = set(NUMBER.findall(en))
    return {
        "verdict": 2 if verdict == header(code, "expect")[0] and
        verdict in AGREES[gloo_record(path)[0]] else 0,
        "located": int(bool(re.search(r"\blines? \d+", en))) +
        int(bool(re.search(r"\branks? \d", en) and
                 re.search(r"\b(step|call|i?send|i?recv|element|round|index|stage|layer)", en))),
        "cause": _share(names, en),
        "advice": 0 if forbidden_calls(path, en + zh) or wrong_wait or MENU in en else 2,
        "zh": int(_share(header(code, "names_zh"), zh) == 2) +
        int(numbers <= set(NUMBER.findall(zh)) and not prose),
    }


def main(argv: list[str]) -> int:
    """Print the table."""
    rows: dict[str, list[dict[str, int]]] = {}
    per_file = "--files" in argv
    width = 44 if per_file else 26
    print(f"{'exercise' + ('/file' if per_file else ''):<{width}} {'n':>3} "
          + " ".join(f"{q:>8}" for q in QUESTIONS))
    only = {a for a in argv if not a.startswith("--")}
    for path in (f for f in FILES if not only or f.parent.name in only):
        s = score(path)
        rows.setdefault(path.parent.name, []).append(s)
        if per_file:
            label = f"{path.parent.name}/{path.stem}"
            print(f"{label:<{width}} {1:>3} " + " ".join(f"{s[q]:>8}" for q in QUESTIONS))
    every = [s for scores in rows.values() for s in scores]
    if not per_file:
        for name, scores in rows.items():
            print(f"{name:<{width}} {len(scores):>3} "
                  + " ".join(f"{statistics.mean(s[q] for s in scores):>8.2f}" for q in QUESTIONS))
    print(f"{'all':<{width}} {len(every):>3} "
          + " ".join(f"{statistics.mean(s[q] for s in every):>8.2f}" for q in QUESTIONS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
