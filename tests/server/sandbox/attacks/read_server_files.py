# attack: read the server's code, settings, environment and the host's secrets
# expect: wrong_answer
import os

PATHS = ("/etc/shadow", "/root/.bash_history", "/proc/1/environ", "/work/main/server/settings.py",
         "/work/main/pyproject.toml", "/work/main/.git/config", "/etc/ssh/ssh_host_rsa_key")


def ring_all_reduce(t):
    leaks = [k for k in os.environ if k.startswith("CJUDGE") or "SECRET" in k or "DATABASE" in k]
    for path in PATHS:
        try:
            with open(path, "rb") as f:
                data = f.read(200)
        except OSError:
            continue
        if path == "/proc/1/environ" and b"CJUDGE" not in data and b"DATABASE" not in data:
            continue  # pid 1 of the sandbox's own pid namespace: nothing of the server
        leaks.append(f"{path}: {data[:40]!r}")
    if leaks:
        raise RuntimeError(f"LEAKED {leaks}")
