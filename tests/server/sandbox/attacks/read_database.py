# attack: look for the server's SQLite database, its secret key and its data directory
# expect: wrong_answer
import os

TARGETS = ("judge.db", "judge.db-wal", "secret_key")


def ring_all_reduce(t):
    for top in ("/", "/tmp", "/work", "/root", "/var", "/srv", "/home", "/data", "/etc"):
        for dirpath, dirs, files in os.walk(top):
            # the public system and Python files are visible, but too many to read in time
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr", "lib", "site-packages")]
            for name in files:
                if name in TARGETS:
                    path = os.path.join(dirpath, name)
                    try:
                        with open(path, "rb") as f:
                            data = f.read(64)
                    except OSError:
                        continue
                    raise RuntimeError(f"LEAKED {path}: {data!r}")
    # nothing found: leave t as it is (a wrong answer)
