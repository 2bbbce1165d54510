"""Connection abuse against a judge URL (the compose deployment's proxy, or ``make serve``):
a header flood, then 2000 idle connections held open while ``/healthz`` is asked for; exits 1
unless the header flood was cut off and every ``/healthz`` answered within 1 s.

    python benchmarks/proxy_flood.py http://127.0.0.1:8080 [--idle 2000] [--header-mib 64]
"""

from __future__ import annotations

import argparse
import resource
import socket
import sys
import time
import urllib.request
from urllib.parse import urlparse


def header_flood(host: str, port: int, mib: int) -> tuple[bool, int]:
    """Send up to ``mib`` MiB of headers that never end; (cut off, bytes sent)."""
    sock = socket.create_connection((host, port), timeout=10)
    sent = 0
    try:
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n".encode())
        line = b"X-Flood: " + b"a" * 4086 + b"\r\n"
        while sent < mib << 20:
            sock.sendall(line)
            sent += len(line)
        sock.settimeout(5)
        answer = sock.recv(64)
        return answer == b"" or answer.startswith(b"HTTP/1.1 4"), sent
    except TimeoutError:
        return False, sent
    except OSError:
        return True, sent
    finally:
        sock.close()


def healthz_s(url: str) -> float:
    """Seconds ``/healthz`` took to answer (inf if it failed)."""
    start = time.monotonic()
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=5) as response:
            response.read()
    except OSError:
        return float("inf")
    return time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--header-mib", type=int, default=64)
    parser.add_argument("--hold-s", type=float, default=5.0)
    args = parser.parse_args()
    target = urlparse(args.url.rstrip("/"))
    host, port = target.hostname or "127.0.0.1", target.port or 80
    url = args.url.rstrip("/")

    cut, sent = header_flood(host, port, args.header_mib)
    print(f"header flood: {'cut off' if cut else 'NOT cut off'} after {sent / 1024:.0f} KiB sent")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.idle + 256)), hard))
    idle: list[socket.socket] = []
    for _ in range(args.idle):
        try:
            idle.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            break
    times = []
    deadline = time.monotonic() + args.hold_s
    while time.monotonic() < deadline:
        times.append(healthz_s(url))
        time.sleep(0.2)
    for sock in idle:
        sock.close()
    worst = max(times)
    print(f"{len(idle)} idle connections held: /healthz answered {len(times)} times, "
          f"slowest {worst:.3f} s")
    return 0 if cut and worst <= 1.0 and len(idle) == args.idle else 1


if __name__ == "__main__":
    sys.exit(main())
