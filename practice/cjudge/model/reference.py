"""Switch traces of known algorithms, generated without running anything.

:class:`TraceBuilder` writes a :class:`~cjudge.switch.trace.SwitchTrace` the way the switch
would record a run: requests, FIFO-matched messages, waits and collectives on one logical clock.
The algorithms below are the chapter's (ring, recursive doubling, Rabenseifner, direct
all-to-all, hierarchical, binomial broadcast). They are the model's unit-test fixtures and the
reference curves of ``judge.py model``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ..switch.trace import Collective, Message, Request, SwitchTrace, Wait


def split(nbytes: int, parts: int) -> list[int]:
    """``nbytes`` in ``parts`` near-equal whole chunks, the larger first."""
    base, extra = divmod(nbytes, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class TraceBuilder:
    """Build a trace call by call; every call advances the switch's logical clock by one."""

    def __init__(self, world_size: int) -> None:
        self.world_size = world_size
        self.t = 0
        self.requests: list[Request] = []
        self.messages: list[Message] = []
        self.collectives: list[Collective] = []
        self.waits: list[Wait] = []
        self._queues: dict[tuple[str, int, int, int], deque[int]] = {}
        self._seq = 0

    def _tick(self) -> int:
        self.t += 1
        return self.t

    def _request(self, rank: int, kind: str, peer: int | None, nbytes: int, tag: int,
                 api: str) -> Request:
        req: Request = {"id": len(self.requests), "rank": rank, "kind": kind, "group": 0,
                        "peer": peer, "tag": tag, "bytes": nbytes,
                        "sent": nbytes if kind == "send" else 0, "dtype": "uint8", "line": None,
                        "api": api, "graded": True, "posted": self._tick(), "completed": None,
                        "message": None, "collective": None}
        self.requests.append(req)
        return req

    def _post(self, req: Request, src: int, dst: int) -> int:
        """Queue a p2p request, or match it FIFO against the other side's oldest."""
        mine = "send" if req["kind"] == "send" else "recv"
        other = "recv" if mine == "send" else "send"
        queue = self._queues.get((other, src, dst, req["tag"]))
        if not queue:
            self._queues.setdefault((mine, src, dst, req["tag"]), deque()).append(req["id"])
            return req["id"]
        peer = self.requests[queue.popleft()]
        send, recv = (req, peer) if mine == "send" else (peer, req)
        t = self._tick()
        message: Message = {"id": len(self.messages), "group": 0, "src": src, "dst": dst,
                            "tag": req["tag"], "bytes": send["bytes"], "send": send["id"],
                            "recv": recv["id"], "matched": t}
        self.messages.append(message)
        for r in (send, recv):
            r["message"], r["completed"] = message["id"], t
        return req["id"]

    def isend(self, rank: int, dst: int, nbytes: int, tag: int = 0) -> int:
        """Rank ``rank`` posts a send of ``nbytes`` to ``dst``; the request id."""
        return self._post(self._request(rank, "send", dst, nbytes, tag, "isend"), rank, dst)

    def irecv(self, rank: int, src: int, nbytes: int, tag: int = 0) -> int:
        """Rank ``rank`` posts a receive of ``nbytes`` from ``src``; the request id."""
        return self._post(self._request(rank, "recv", src, nbytes, tag, "irecv"), src, rank)

    def wait(self, rank: int, request: int) -> None:
        """Rank ``rank`` waits for ``request`` (already matched: builders wait after posting)."""
        completed = self.requests[request]["completed"]
        if completed is None:
            raise ValueError(f"request {request} waited on before it matched")
        begin = self._tick()
        self.waits.append({"rank": rank, "request": request, "begin": begin, "end": self._tick()})

    def collective(self, kind: str, ranks: list[int], sizes: list[int], sent: list[int],
                   root: int | None = None) -> None:
        """Every member of ``ranks`` calls a blocking built-in ``kind`` (post, then wait)."""
        reqs = [self._request(r, kind, root, sizes[i], 0, kind) for i, r in enumerate(ranks)]
        for req, nbytes in zip(reqs, sent, strict=True):
            req["sent"] = nbytes
        started = self._tick()
        coll: Collective = {"id": len(self.collectives), "kind": kind, "group": 0, "ranks": ranks,
                            "seq": self._seq, "requests": [r["id"] for r in reqs], "bytes": sent,
                            "size": sizes, "root": root, "op": "sum", "started": started}
        self._seq += 1
        self.collectives.append(coll)
        for r in reqs:
            r["collective"], r["completed"] = coll["id"], started
        for r in reqs:
            self.wait(r["rank"], r["id"])

    def exchange(self, pairs: list[tuple[int, int, int]]) -> None:
        """One step: every (src, dst, bytes) is posted on both sides, then every rank waits."""
        posted: list[tuple[int, int]] = []
        for src, dst, nbytes in pairs:
            posted.append((src, self.isend(src, dst, nbytes)))
            posted.append((dst, self.irecv(dst, src, nbytes)))
        for rank, req in posted:
            self.wait(rank, req)

    def trace(self) -> SwitchTrace:
        """The trace so far."""
        return {"world_size": self.world_size, "groups": [list(range(self.world_size))],
                "requests": self.requests, "messages": self.messages,
                "collectives": self.collectives, "waits": self.waits, "refused": [],
                "deadlock": []}


def _ring_steps(b: TraceBuilder, ranks: list[int], chunks: list[int], steps: int,
                first: int) -> None:
    """``steps`` ring steps over ``ranks``: member i sends chunk (i − s + first) to member i+1."""
    n = len(ranks)
    for s in range(steps):
        b.exchange([(ranks[i], ranks[(i + 1) % n], chunks[(i - s + first) % n])
                    for i in range(n)])


def ring_all_reduce(n: int, nbytes: int) -> SwitchTrace:
    """Ring all-reduce: n−1 reduce-scatter steps then n−1 all-gather steps of S/n."""
    b = TraceBuilder(n)
    chunks = split(nbytes, n)
    _ring_steps(b, list(range(n)), chunks, n - 1, 0)
    _ring_steps(b, list(range(n)), chunks, n - 1, 1)
    return b.trace()


def ring_reduce_scatter(n: int, nbytes: int) -> SwitchTrace:
    """Ring reduce-scatter of an S-byte input: n−1 steps of S/n."""
    b = TraceBuilder(n)
    _ring_steps(b, list(range(n)), split(nbytes, n), n - 1, 0)
    return b.trace()


def _power_of_two(n: int, what: str) -> None:
    if n < 1 or n & (n - 1):
        raise ValueError(f"{what} needs a power-of-two number of ranks, not {n}")


def recursive_doubling(n: int, nbytes: int) -> SwitchTrace:
    """Recursive-doubling all-reduce (n a power of two): log₂n exchanges of the whole S."""
    _power_of_two(n, "recursive doubling")
    b = TraceBuilder(n)
    distance = 1
    while distance < n:
        b.exchange([(r, r ^ distance, nbytes) for r in range(n)])
        distance *= 2
    return b.trace()


def rabenseifner(n: int, nbytes: int) -> SwitchTrace:
    """Rabenseifner all-reduce (n a power of two): recursive-halving reduce-scatter
    (S/2, S/4, …) then recursive-doubling all-gather (…, S/4, S/2)."""
    _power_of_two(n, "Rabenseifner")
    b = TraceBuilder(n)
    halves, size, distance = [], nbytes, n // 2
    while distance >= 1:
        size //= 2
        halves.append((distance, size))
        b.exchange([(r, r ^ distance, size) for r in range(n)])
        distance //= 2
    for distance, size in reversed(halves):
        b.exchange([(r, r ^ distance, size) for r in range(n)])
    return b.trace()


def direct_all_to_all(n: int, nbytes: int) -> SwitchTrace:
    """All-to-all from p2p: rank r posts its n−1 blocks of S/n to r+1, r+2, … at once, then waits."""
    b = TraceBuilder(n)
    block = nbytes // n
    posted: list[tuple[int, int]] = []
    for j in range(1, n):
        for r in range(n):
            posted.append((r, b.isend(r, (r + j) % n, block)))
            posted.append(((r + j) % n, b.irecv((r + j) % n, r, block)))
    for rank, req in posted:
        b.wait(rank, req)
    return b.trace()


def binomial_broadcast(n: int, nbytes: int) -> SwitchTrace:
    """Binomial-tree broadcast from rank 0: in round k ranks below 2ᵏ send S to rank + 2ᵏ."""
    b = TraceBuilder(n)
    distance = 1
    while distance < n:
        b.exchange([(r, r + distance, nbytes) for r in range(min(distance, n - distance))])
        distance *= 2
    return b.trace()


def hierarchical_all_reduce(n: int, nbytes: int, g: int = 8) -> SwitchTrace:
    """All-reduce on nodes of g ranks: ring reduce-scatter inside each node, ring all-reduce of
    each S/g shard across the nodes (rank r with r ± g, …), ring all-gather inside each node."""
    if n <= g or n % g:
        raise ValueError(f"a hierarchical all-reduce needs several nodes of {g} ranks, not {n} ranks")
    b = TraceBuilder(n)
    nodes = [list(range(k, k + g)) for k in range(0, n, g)]
    chunks = split(nbytes, g)
    # phase 1: reduce-scatter inside every node, all nodes at once
    for s in range(g - 1):
        b.exchange([(node[i], node[(i + 1) % g], chunks[(i - s) % g])
                    for node in nodes for i in range(g)])
    # phase 2: a ring all-reduce across nodes of each rank's shard (2(N−1) steps of shard/N)
    count = len(nodes)
    across = [[node[i] for node in nodes] for i in range(g)]
    shard_chunks = [split(chunks[(i + 1) % g], count) for i in range(g)]
    for phase in (0, 1):
        for s in range(count - 1):
            b.exchange([(ring[k], ring[(k + 1) % count], shard_chunks[i][(k - s + phase) % count])
                        for i, ring in enumerate(across) for k in range(count)])
    # phase 3: all-gather inside every node
    for s in range(g - 1):
        b.exchange([(node[i], node[(i + 1) % g], chunks[(i - s + 1) % g])
                    for node in nodes for i in range(g)])
    return b.trace()


def builtin(kind: str, n: int, nbytes: int, root: int = 0) -> SwitchTrace:
    """One call of the built-in collective ``kind`` on every rank (input ``nbytes`` each)."""
    from ..contract.primitives import bytes_sent

    b = TraceBuilder(n)
    rooted = kind in ("broadcast", "reduce", "gather", "scatter")
    logical = nbytes * n if kind == "all_gather" else nbytes
    sent = [bytes_sent(kind, n, r, logical, root if rooted else None) for r in range(n)]
    b.collective(kind, list(range(n)), [nbytes] * n, sent, root if rooted else None)
    return b.trace()


#: a built-in's canonical name -> its reference algorithms as traces of (n, S)
REFERENCES: dict[str, dict[str, Callable[[int, int], SwitchTrace]]] = {
    "all_reduce": {"ring": ring_all_reduce, "recursive doubling": recursive_doubling,
                   "Rabenseifner": rabenseifner, "hierarchical": hierarchical_all_reduce},
    "reduce_scatter": {"ring": ring_reduce_scatter},
    "all_to_all": {"all_to_all_single": lambda n, s: builtin("all_to_all", n, s),
                   "direct p2p": direct_all_to_all},
    "broadcast": {"binomial tree": binomial_broadcast},
}
