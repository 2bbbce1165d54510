"""What a built-in collective costs under the α-β model: the algorithm each one is counted as.

=================  ==========================  ==============================================
collective         algorithm                   time on one link class (S: a rank's input)
=================  ==========================  ==============================================
all_reduce         ring                        2(n−1)·α + 2(n−1)/n · S/β
reduce_scatter     ring                        (n−1)·α + (n−1)/n · S/β
all_gather         ring                        (n−1)·α + (n−1) · S/β     (S: the shard)
all_to_all         direct, one port per rank   α + (n−1)/n · S/β         (free: α + S/n/β)
broadcast, reduce  binomial tree               ⌈log₂n⌉ · (α + S/β)
gather, scatter    direct at the root          α + (n−1) · B/β           (B: one rank's block)
barrier            dissemination               ⌈log₂n⌉ · α
symm_barrier       signal pads                 α            (a flag stored into every peer's)
=================  ==========================  ==============================================

On a topology with two link classes a ring step, a tree round or a direct exchange takes as long
as its slowest link: the ring is the group's ranks in group order, the tree is rooted at the
root, and a direct exchange serialises each rank's blocks per link class (its NVLink port and its
NIC are separate ports).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .topology import Link, ModelError, Topology


@dataclass
class Cost:
    """A collective's modelled cost: steps on its critical path, latency and bandwidth seconds."""

    steps: int = 0
    latency: float = 0.0  # s: the α terms
    transfer: float = 0.0  # s: the bytes/β terms
    link_bytes: dict[str, float] = field(default_factory=dict)  # bytes moved per link class

    def add(self, steps: int, link: Link, nbytes: float) -> None:
        """``steps`` more steps over ``link`` carrying ``nbytes`` each."""
        self.steps += steps
        self.latency += steps * link.alpha
        self.transfer += steps * nbytes / link.beta

    def moved(self, klass: str, nbytes: float) -> None:
        """Count ``nbytes`` sent over link class ``klass``."""
        self.link_bytes[klass] = self.link_bytes.get(klass, 0.0) + nbytes


def _slowest(topo: Topology, pairs: list[tuple[int, int]], nbytes: float) -> Link:
    """The slowest link among ``pairs`` for ``nbytes``: of their link classes (each once, in
    the order the pairs first use them), the first that takes longest."""
    classes = dict.fromkeys(topo.link_class(a, b) for a, b in pairs)
    return max((topo.links[klass] for klass in classes), key=lambda link: link.seconds(nbytes))


def _ring(topo: Topology, ranks: list[int], steps: int, chunk: float) -> Cost:
    n = len(ranks)
    pairs = [(ranks[i], ranks[(i + 1) % n]) for i in range(n)]
    cost = Cost()
    cost.add(steps, _slowest(topo, pairs, chunk), chunk)
    for a, b in pairs:
        cost.moved(topo.link_class(a, b), steps * chunk)
    return cost


def _rounds(n: int) -> int:
    return math.ceil(math.log2(n)) if n > 1 else 0


def _tree(topo: Topology, ranks: list[int], root: int, nbytes: float) -> Cost:
    n, cost = len(ranks), Cost()
    for k in range(_rounds(n)):
        pairs = [(ranks[(v + root) % n], ranks[(v + 2**k + root) % n])
                 for v in range(min(2**k, n - 2**k))]
        cost.add(1, _slowest(topo, pairs, nbytes), nbytes)
        for a, b in pairs:
            cost.moved(topo.link_class(a, b), nbytes)
    return cost


def _direct(topo: Topology, ranks: list[int], senders: list[int], blocks: list[float],
            contention: bool) -> Cost:
    """Each sender sends one block to every other member at once; the slowest sender decides.

    With port contention a rank's blocks on one link class leave through one port one after
    another (α is paid once, the bytes add up); without, every block travels in parallel.
    """
    worst, worst_time = Cost(), -1.0
    for s in senders:
        me, block = ranks[s], blocks[s]
        for klass in sorted({topo.link_class(me, r) for r in ranks if r != me}):
            peers = [r for r in ranks if r != me and topo.link_class(me, r) == klass]
            link = topo.links[klass]
            nbytes = block * (len(peers) if contention else 1)
            if link.seconds(nbytes) > worst_time:
                worst, worst_time = Cost(), link.seconds(nbytes)
                worst.add(1, link, nbytes)
    cost = Cost(worst.steps, worst.latency, worst.transfer)
    for s in senders:
        for r in ranks:
            if r != ranks[s]:
                cost.moved(topo.link_class(ranks[s], r), blocks[s])
    return cost


def collective_cost(kind: str, ranks: list[int], sizes: list[float], sent: list[float],
                    root: int | None, topo: Topology, contention: bool = True) -> Cost:
    """The cost of one built-in collective over ``ranks`` (global ranks, group order).

    ``sizes``: each member's input bytes; ``sent``: the logical bytes each member sends (used for
    all_to_all's blocks, which may be uneven); ``root``: the global root of rooted collectives.
    """
    n = len(ranks)
    if n <= 1:
        return Cost()
    at = ranks.index(root) if root is not None and root in ranks else 0
    if kind == "all_reduce":
        return _ring(topo, ranks, 2 * (n - 1), sizes[0] / n)
    if kind == "reduce_scatter":
        return _ring(topo, ranks, n - 1, sizes[0] / n)
    if kind == "all_gather":
        return _ring(topo, ranks, n - 1, sizes[0])
    if kind in ("broadcast", "reduce"):
        return _tree(topo, ranks, at, sizes[at])
    if kind == "all_to_all":
        return _direct(topo, ranks, list(range(n)), [b / (n - 1) for b in sent], contention)
    if kind == "scatter":
        return _direct(topo, ranks, [at], [sizes[at] / n] * n, contention)
    if kind == "gather":
        # the root receives one block from every member: the same serialisation on its port
        return _direct(topo, ranks, [at], [sizes[at]] * n, contention)
    if kind == "barrier":
        cost = Cost()
        for k in range(_rounds(n)):
            pairs = [(ranks[i], ranks[(i + 2**k) % n]) for i in range(n)]
            cost.add(1, _slowest(topo, pairs, 0.0), 0.0)
        return cost
    if kind == "symm_barrier":  # one round: every rank stores a flag into each peer's pad
        cost = Cost()
        cost.add(1, _slowest(topo, [(a, b) for a in ranks for b in ranks if a != b], 0.0), 0.0)
        return cost
    raise ModelError(f"the model has no algorithm for the collective {kind!r}")
