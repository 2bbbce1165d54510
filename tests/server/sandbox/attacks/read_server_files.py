# attack: read the server's code, settings, environment and the host's secrets
# expect: wrong_answer
import glob
import os

# the judge's own tree, wherever this machine keeps it: any folder up to three levels below a
# top-level one (not /proc, /sys, /dev) that holds server/settings.py
# (glob finds nothing where listing is refused, as it is in a confined rank)
TREES = [found[:-len("server/settings.py")]
         for top in glob.glob("/*/") if top not in ("/proc/", "/sys/", "/dev/")
         for depth in ("", "*/", "*/*/")
         for found in glob.glob(f"{top}{depth}server/settings.py")]
PATHS = ("/etc/shadow", "/root/.bash_history", "/proc/1/environ", "/etc/ssh/ssh_host_rsa_key",
         *(tree + name for tree in TREES
           for name in ("server/settings.py", "pyproject.toml", ".git/config")))


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
