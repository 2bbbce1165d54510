# attack: find and copy the exercise's reference solution (or any exercise folder)
# expect: wrong_answer
import os


def ring_all_reduce(t):
    for dirpath, dirs, files in os.walk("/"):
        # the public system and Python files are visible, but too many to search in time
        dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr", "site-packages")]
        if "solution.py" in files or "exercise.toml" in files or "grader.py" in files:
            raise RuntimeError(f"LEAKED an exercise folder: {dirpath}")
