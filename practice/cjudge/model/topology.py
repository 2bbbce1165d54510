"""Topologies as data: link classes with a latency α and a bandwidth β each, ranks on nodes.

A topology has ``gpus_per_node`` (g) GPUs per node; rank r sits on node r // g. Two ranks on one
node talk over the ``intra`` link class, ranks on two nodes over ``inter``. A case may place fewer
ranks on each node (:meth:`Topology.placed`: a 2 × 2 case on the 2 × 8 machine). The catalog is
``topologies.json`` beside this file (each entry names its source); ``bench`` may add "this
machine" from a fitted sweep, kept outside the repository.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import NotRequired, TypedDict

from ..contract.units import format_seconds

INTRA, INTER = "intra", "inter"


class LinkJSON(TypedDict):
    """A link class in the catalog's units: µs and GB/s."""

    alpha_us: float
    beta_GBps: float
    gap_us: float


class TopologyJSON(TypedDict):
    """A catalog entry (``topologies.json``), as a case's ``model`` also shows it."""

    name: str
    title: str
    gpus_per_node: int
    nodes: int
    intra: LinkJSON
    inter: NotRequired[LinkJSON]  # a machine of more than one node
    source: NotRequired[str]  # written last, after the links
CATALOG = resources.files("cjudge.model") / "topologies.json"
#: the name a fitted machine is saved under (``judge.py bench``)
THIS_MACHINE = "this-machine"


class ModelError(ValueError):
    """A topology, size or bound the model cannot use; the message says which and why."""


@dataclass(frozen=True)
class Link:
    """One link class: seconds of latency per message, bytes per second one way, and the gap
    between two messages' starts on one port (LogGP's g: a port starts one message per gap)."""

    alpha: float  # s
    beta: float  # B/s
    gap: float = 0.0  # s

    def busy(self, nbytes: float) -> float:
        """How long a message of ``nbytes`` holds its ports: bytes/β, at least the gap."""
        return max(nbytes / self.beta, self.gap)

    def seconds(self, nbytes: float) -> float:
        """α + bytes/β."""
        return self.alpha + nbytes / self.beta

    def as_json(self) -> LinkJSON:
        """In the catalog's units: µs (to the ps) and GB/s (GB = 1e9 B)."""
        return {"alpha_us": round(self.alpha * 1e6, 6), "beta_GBps": self.beta / 1e9,
                "gap_us": round(self.gap * 1e6, 6)}


@dataclass(frozen=True)
class Topology:
    """Named link classes and how ranks map onto nodes."""

    name: str
    title: str
    gpus_per_node: int
    nodes: int
    links: dict[str, Link] = field(default_factory=dict)
    source: str = ""

    def node(self, rank: int) -> int:
        """The node rank ``rank`` runs on."""
        return rank // self.gpus_per_node

    def link_class(self, a: int, b: int) -> str:
        """``intra`` when ranks ``a`` and ``b`` share a node, else ``inter``."""
        g = self.gpus_per_node  # (:meth:`node` of each, without two calls: the replay asks often)
        return INTRA if a // g == b // g else INTER

    def link(self, a: int, b: int) -> Link:
        """The link between ranks ``a`` and ``b``."""
        return self.links[self.link_class(a, b)]

    def check(self, world_size: int) -> None:
        """Raise :class:`ModelError` if ``world_size`` ranks need a link class this lacks."""
        if world_size > self.gpus_per_node and INTER not in self.links:
            raise ModelError(f"topology {self.name!r} has {self.gpus_per_node} GPUs in one node; "
                             f"a case with {world_size} ranks needs a topology with several nodes")

    def placed(self, ranks_per_node: object, world_size: int) -> Topology:
        """The same machine with ``ranks_per_node`` ranks on each node (rank r on node
        r // ranks_per_node), as many nodes as ``world_size`` ranks fill: the links stay, a time
        bound's ``g`` becomes ``ranks_per_node``."""
        if isinstance(ranks_per_node, bool) or not isinstance(ranks_per_node, int) or not (
                1 <= ranks_per_node <= self.gpus_per_node):
            raise ModelError(f"topology {self.name!r}: ranks per node must be a whole number from 1 "
                             f"to its {self.gpus_per_node} GPUs per node, not {ranks_per_node!r}")
        nodes = -(-world_size // ranks_per_node)
        if nodes > 1 and INTER not in self.links:
            raise ModelError(f"topology {self.name!r} has one node; {world_size} ranks at "
                             f"{ranks_per_node} per node need a topology with several nodes")
        return replace(self, title=f"{self.title}; this case: {nodes} node(s) × {ranks_per_node} "
                       "rank(s)", gpus_per_node=ranks_per_node, nodes=nodes)

    def described(self, world_size: int) -> tuple[str, str]:
        """The machine as a case of ``world_size`` ranks uses it, (English, Chinese): its ranks,
        nodes and the α and β of the links they use."""
        nodes = -(-world_size // self.gpus_per_node)

        def link(klass: str) -> str:
            x = self.links[klass]
            return f"α = {format_seconds(x.alpha)}, β = {x.beta / 1e9:g} GB/s"

        if nodes == 1:
            return (f"{world_size} ranks in one node of {self.name} ({link(INTRA)})",
                    f"{self.name} 的一个节点内的 {world_size} 个 rank（{link(INTRA)}）")
        return (f"{world_size} ranks on {nodes} nodes of {self.name}, {self.gpus_per_node} per "
                f"node (in a node {link(INTRA)}; between nodes {link(INTER)})",
                f"{self.name} 的 {nodes} 个节点上的 {world_size} 个 rank，每个节点 "
                f"{self.gpus_per_node} 个（节点内 {link(INTRA)}；节点间 {link(INTER)}）")

    def params(self) -> dict[str, float]:
        """The names a time bound may use: alpha, beta (intra), alpha_inter, beta_inter, g."""
        intra = self.links[INTRA]
        inter = self.links.get(INTER, intra)
        return {"alpha": intra.alpha, "beta": intra.beta, "alpha_inter": inter.alpha,
                "beta_inter": inter.beta, "g": float(self.gpus_per_node)}

    def as_json(self) -> TopologyJSON:
        """The catalog entry (also what a case's ``model`` shows)."""
        out: TopologyJSON = {"name": self.name, "title": self.title,
                             "gpus_per_node": self.gpus_per_node, "nodes": self.nodes,
                             "intra": self.links[INTRA].as_json()}
        if INTER in self.links:
            out["inter"] = self.links[INTER].as_json()
        out["source"] = self.source
        return out


def _link(entry: object, where: str) -> Link:
    if not isinstance(entry, dict):
        raise ModelError(f"{where}: expected a table with alpha_us, beta_GBps and gap_us")
    try:
        alpha, beta = float(entry["alpha_us"]) * 1e-6, float(entry["beta_GBps"]) * 1e9
        gap = float(entry.get("gap_us", 0.0)) * 1e-6
    except (KeyError, TypeError, ValueError):
        raise ModelError(f"{where}: needs numbers alpha_us and beta_GBps (and gap_us)") from None
    if alpha < 0 or beta <= 0 or not 0 <= gap <= alpha:
        raise ModelError(f"{where}: needs alpha_us >= 0, beta_GBps > 0 and 0 <= gap_us <= alpha_us")
    return Link(alpha, beta, gap)


def topology_from_json(name: str, entry: Mapping[str, object]) -> Topology:
    """One catalog entry as a :class:`Topology`; :class:`ModelError` says what is wrong."""
    links = {INTRA: _link(entry.get(INTRA), f"topology {name}.{INTRA}")}
    if INTER in entry:
        links[INTER] = _link(entry[INTER], f"topology {name}.{INTER}")
    g, nodes = entry.get("gpus_per_node", 8), entry.get("nodes", 1)
    if not isinstance(g, int) or not isinstance(nodes, int) or g < 1 or nodes < 1:
        raise ModelError(f"topology {name}: gpus_per_node and nodes must be whole numbers >= 1")
    return Topology(name, str(entry.get("title", name)), g, nodes, links, str(entry.get("source", "")))


@cache
def _catalog() -> dict[str, Topology]:
    """The repository's catalog, read once (every modelled case looks its topology up)."""
    raw = json.loads(CATALOG.read_text(encoding="utf-8"))
    return {name: topology_from_json(name, entry) for name, entry in raw.items()}


def load_topologies(extra: Path | None = None) -> dict[str, Topology]:
    """The repository's catalog, plus the entries of ``extra`` (a fitted machine) if it exists."""
    known = dict(_catalog())
    if extra is not None and extra.is_file():
        raw = json.loads(extra.read_text(encoding="utf-8"))
        known.update({name: topology_from_json(name, entry) for name, entry in raw.items()})
    return known


def get_topology(name: str, extra: Path | None = None) -> Topology:
    """The topology called ``name``; :class:`ModelError` lists the known ones."""
    known = load_topologies(extra)
    if name not in known:
        raise ModelError(f"unknown topology {name!r}: one of {', '.join(known)}")
    return known[name]
