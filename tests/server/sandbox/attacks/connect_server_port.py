# attack: reach the judge server's own HTTP port (and the usual ports) on loopback
# expect: wrong_answer
import socket

SERVER_PORT = 0  # the test writes the judge's real port here
PORTS = (SERVER_PORT, 8000, 5432, 22, 80)


def ring_all_reduce(t):
    for host in ("127.0.0.1", "localhost", "::1"):
        for port in PORTS:
            try:
                with socket.create_connection((host, port), timeout=0.5):
                    raise RuntimeError(f"LEAKED connected to {host}:{port}")
            except OSError:
                pass
