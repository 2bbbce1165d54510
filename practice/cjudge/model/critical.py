"""The critical path of a modelled run: the chain of transfers that decides when the last rank
finishes, walked back from the last rank's last completion (:func:`critical_path`).

A transfer that started when it was posted was waiting for the rank that posted it last, whose
clock was the completion of a transfer it had waited for; one that started later waited for a
port, freed by an earlier transfer. Grading names the path's ranks, steps and lines in a
too_slow message (:mod:`.slow`); the trace view draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..switch.trace import Collective, Message, Request, Step, StepKind
from .replay import Spans
from .topology import Topology

#: a message ("m", id) or a collective ("c", id)
Key = tuple[str, int]


class Hop(NamedTuple):
    """One transfer on the critical path: a message (``src`` → ``dst``) or a collective
    (``kind``), its step, the line that posted it and, where the path runs through one rank's
    wait, that rank (a collective's last to post)."""

    key: Key
    step: int
    line: int | None
    src: int | None = None
    dst: int | None = None
    recv_line: int | None = None
    kind: str = ""
    waited: int | None = None


class Clocks(NamedTuple):
    """The modelled clocks the walk reads: each request's completion and post, and when each
    rank's lane ends (None: it waits for a request the model never completes)."""

    done: dict[int, float]
    post_t: dict[int, float]
    lane_end: list[float | None]


class _Transfer(NamedTuple):
    """A message or a collective as the walk looks it up: its step, ends (-1 for a
    collective's) or members, and bytes (a message's)."""

    step: int
    src: int
    dst: int
    ranks: list[int]
    nbytes: int


def critical_path(messages: list[Message], collectives: list[Collective],
                  graded: dict[int, Request], step: dict[int, int],
                  program_of: list[list[Step]], clocks: Clocks, topo: Topology, scale: float,
                  spans: Spans, last_to_post: dict[int, int]) -> list[Hop]:
    """The chain of transfers that decides when the last rank finishes, first to last (empty
    when the run was not modelled or some rank never finishes); each collective names the rank
    whose post it waited for, by the replay's clocks, which count the judge's functions
    (:attr:`~cjudge.model.replay.Replay.last_to_post`)."""
    if not spans or any(e is None for e in clocks.lane_end):
        return []
    transfers = _Transfers.of(messages, collectives, graded, step)
    walk = _CriticalWalk(transfers, program_of, clocks, topo, scale, spans)
    chain = walk.chain(walk.last_transfer(clocks.lane_end))
    by_id = {m["id"]: m for m in messages}
    collective_by_id = {c["id"]: c for c in collectives}
    hops: list[Hop] = []
    for key in reversed(chain):
        at = transfers.rows[key].step
        if key[0] == "m":
            m = by_id[key[1]]
            hops.append(Hop(key, at, graded[m["send"]]["line"], m["src"], m["dst"],
                            graded[m["recv"]]["line"]))
        else:
            c = collective_by_id[key[1]]
            line = next((x for x in (graded[rid]["line"] for rid in c["requests"]) if x), None)
            hops.append(Hop(key, at, line, kind=c["kind"], waited=last_to_post.get(key[1])))
    return hops


def ps(seconds: float) -> int:
    """A modelled time in whole picoseconds: equal for transfers that tie, whatever order the
    run's interleaving gave their sums (ties are then broken by side and rank, not by that
    order)."""
    return round(seconds * 1e12)


def _close(a: float, b: float) -> bool:
    """Whether two modelled times are the same but for rounding."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-9)


@dataclass
class _Transfers:
    """The graded messages and collectives as the critical path looks them up."""

    rows: dict[Key, _Transfer]
    by_request: dict[int, Key]  # a graded request -> the transfer it took part in
    sides: dict[Key, list[Request]]  # a transfer -> the requests that took part in it
    touching: dict[int, list[Key]]  # per rank, the transfers that hold its ports

    @classmethod
    def of(cls, messages: list[Message], collectives: list[Collective],
           graded: dict[int, Request], step: dict[int, int]) -> _Transfers:
        """Index the graded messages and collectives and their graded requests."""
        rows: dict[Key, _Transfer] = {}
        for m in messages:
            rows[("m", m["id"])] = _Transfer(step.get(m["send"], 0), m["src"], m["dst"],
                                             [m["src"], m["dst"]], m["bytes"])
        for c in collectives:
            rows[("c", c["id"])] = _Transfer(step.get(c["requests"][0], 0), -1, -1, c["ranks"], 0)
        by_request: dict[int, Key] = {}
        sides: dict[Key, list[Request]] = {}
        for rid, r in graded.items():
            if r["message"] is not None:
                key: Key = ("m", r["message"])
            elif r["collective"] is not None:
                key = ("c", r["collective"])
            else:
                continue
            if key in rows:
                by_request[rid] = key
                sides.setdefault(key, []).append(r)
        touching: dict[int, list[Key]] = {}
        for key, row in rows.items():
            for rank in row.ranks:
                touching.setdefault(rank, []).append(key)
        return cls(rows, by_request, sides, touching)


@dataclass
class _CriticalWalk:
    """What the walk back along the critical path reads: the transfers, the ranks' programs
    and the modelled clocks."""

    transfers: _Transfers
    program_of: list[list[Step]]
    clocks: Clocks
    topo: Topology
    scale: float
    spans: Spans

    def last_transfer(self, lane_end: list[float | None]) -> Key | None:
        """The transfer whose completion ended the last rank to finish."""
        last = max(range(len(lane_end)), key=lambda r: (ps(lane_end[r] or 0.0), -r))
        end = lane_end[last] or 0.0
        done = self.clocks.done
        current = None
        for action in self.program_of[last]:
            rid = action.request
            if rid in done and _close(done[rid], end) and rid in self.transfers.by_request:
                current = self.transfers.by_request[rid]
        return current

    def chain(self, current: Key | None) -> list[Key]:
        """The transfers from ``current`` back to the first it waited for, last first."""
        chain: list[Key] = []
        seen: set[Key] = set()
        while current is not None and current not in seen and current in self.spans:
            seen.add(current)
            chain.append(current)
            current = self.previous(current)
        return chain

    def previous(self, current: Key) -> Key | None:
        """The transfer that ``current`` waited for: the one that set the clock of the rank
        that posted it last, or the one that freed its port."""
        start = self.spans[current][0]
        post_t = self.clocks.post_t
        posted = [(post_t.get(s["id"], 0.0), s) for s in self.transfers.sides.get(current, [])]
        # on a tie, the sender: the path follows the data back to where it came from
        ready, later = max(posted, key=lambda p: (ps(p[0]), p[1]["kind"] == "send",
                                                  -p[1]["rank"])) if posted else (0.0, None)
        if start <= ready or _close(start, ready):
            if ready > 0 and later is not None:
                return self.waited_before(later["rank"], later["id"], ready)
            return None
        if current[0] == "m":  # it waited for a port: the transfer that freed it
            return self.freed_port(current, start)
        return None

    def waited_before(self, rank: int, when_rid: int, at: float) -> Key | None:
        """The transfer whose completion set ``rank``'s clock to ``at`` before posting."""
        best = None
        done = self.clocks.done
        for action in self.program_of[rank]:
            if action.kind is StepKind.POST and action.request == when_rid:
                break
            if action.kind is StepKind.WAIT and action.request in done and \
                    _close(done[action.request], at):
                best = self.transfers.by_request.get(action.request)
        return best

    def freed_port(self, current: Key, start: float) -> Key | None:
        """The transfer whose end of port use let message ``current`` start at ``start``."""
        topo, rows, touching = self.topo, self.transfers.rows, self.transfers.touching
        m = rows[current]
        klass = topo.link_class(m.src, m.dst)
        for key in sorted(touching.get(m.src, []) + touching.get(m.dst, []),
                          key=lambda k: (rows[k].step, rows[k].src, rows[k].dst, k[0])):
            other = rows[key]
            if key == current or key not in self.spans:
                continue
            if key[0] == "m":
                if topo.link_class(other.src, other.dst) != klass or not (
                        other.src == m.src or other.dst == m.dst):
                    continue
                free = self.spans[key][0] + other.nbytes * self.scale / topo.links[klass].beta
            else:
                free = self.spans[key][1]
            if _close(free, start):
                return key
        return None
