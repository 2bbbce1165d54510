# attack: find a way out of the sandbox's network: interfaces, routes, name resolution
# expect: wrong_answer
import socket


def ring_all_reduce(t):
    try:
        names = [name for _, name in socket.if_nameindex()]
    except PermissionError:  # a confined rank opens no socket, netlink's included
        names = ["lo"]
    if names != ["lo"]:
        raise RuntimeError(f"LEAKED interfaces {names}")
    with open("/proc/net/route") as f:
        routes = f.read().splitlines()[1:]
    if routes:
        raise RuntimeError(f"LEAKED routes {routes}")
    with open("/proc/net/if_inet6") as f:
        v6 = [line for line in f.read().splitlines() if not line.endswith(" lo")]
    if v6:
        raise RuntimeError(f"LEAKED v6 addresses {v6}")
    try:
        socket.getaddrinfo("pypi.org", 443)
    except OSError:
        return
    raise RuntimeError("LEAKED name resolution works")
