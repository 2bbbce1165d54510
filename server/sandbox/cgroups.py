"""Per-sandbox control groups: memory, process and CPU limits, OOM detection and killing.

Works with cgroup v2 (limits through its controllers, ``cgroup.kill``) and with v1 hierarchies
(``memory``, ``pids``, ``cpu``) side by side with a controller-less v2 mount, as on hybrid hosts.
Each sandbox gets one group per hierarchy, created under the worker's own group there.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpu")
STALE_S = 600.0  # a sandbox group this old and empty belongs to no live sandbox


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use; ``cpu_cores`` 0 means no CPU cap."""

    memory_bytes: int
    pids: int
    cpu_cores: float = 0.0


@dataclass
class Hierarchies:
    """Where this process's cgroups are, per controller, and which of them we can use."""

    v2: Path | None = None  # our v2 group's directory (kill works even without controllers)
    v2_controllers: frozenset[str] = frozenset()
    v1: dict[str, Path] = field(default_factory=dict)  # controller -> our v1 group's directory

    def controllers(self) -> set[str]:
        """The controllers a sandbox group gets limits from."""
        return set(self.v2_controllers) | set(self.v1)

    def describe(self) -> str:
        """One line for logs and ``doctor``: what isolation the groups provide here."""
        if self.v2 is None and not self.v1:
            return "no usable cgroups: limits by rlimits only, no OOM detection"
        kinds = []
        if self.v2 is not None:
            kinds.append(f"v2 ({', '.join(sorted(self.v2_controllers)) or 'kill only'})")
        if self.v1:
            kinds.append(f"v1 ({', '.join(sorted(self.v1))})")
        return "cgroups " + " + ".join(kinds)


def discover(base_name: str = "cjudge") -> Hierarchies:
    """Find writable cgroup hierarchies and prepare a ``base_name`` parent group in each."""
    found = Hierarchies()
    own = _own_paths()
    for mount, fstype, options in _mounts():
        if fstype == "cgroup2" and "" in own:
            found.v2, found.v2_controllers = _prepare_v2(mount / own[""].lstrip("/"), base_name)
        elif fstype == "cgroup":
            for ctl in V1_CONTROLLERS:
                if ctl in options.split(",") and ctl in own:
                    base = _mkdir(mount / own[ctl].lstrip("/") / base_name)
                    if base is not None:
                        found.v1[ctl] = base
    for base in ([found.v2] if found.v2 else []) + list(found.v1.values()):
        _remove_stale(base)
    # the sandboxes as a group weigh as much as one busy process per core (not just one)
    cores = os.cpu_count() or 1
    if found.v2 is not None and "cpu" in found.v2_controllers:
        _write(found.v2 / "cpu.weight", str(min(10_000, 100 * cores)))
    if "cpu" in found.v1:
        _write(found.v1["cpu"] / "cpu.shares", str(1024 * cores))
    return found


def _remove_stale(base: Path) -> None:
    """Delete empty sandbox groups left by workers that were killed (busy ones stay)."""
    for group in base.glob("sb-*"):
        try:
            if time.time() - group.stat().st_mtime > STALE_S:
                group.rmdir()
        except OSError:
            pass


class Cgroup:
    """One sandbox's groups (one per hierarchy), with its limits applied."""

    def __init__(self, hier: Hierarchies, limits: Limits) -> None:
        name = f"sb-{uuid.uuid4().hex[:12]}"
        self.hier = hier
        self.v2 = _mkdir(hier.v2 / name) if hier.v2 is not None else None
        self.v1 = {ctl: p for ctl, base in hier.v1.items() if (p := _mkdir(base / name))}
        self._apply(limits)

    @property
    def procs_files(self) -> list[Path]:
        """The ``cgroup.procs`` files a process writes its pid into to join every group."""
        dirs = ([self.v2] if self.v2 else []) + list(self.v1.values())
        return [d / "cgroup.procs" for d in dirs]

    def set_priority(self, high: bool) -> None:
        """CPU weight: the lowest while warming up a sandbox (it gets idle CPU only, never a
        running submission's), normal while it runs a submission."""
        if "cpu" in self.hier.v2_controllers and self.v2:
            _write(self.v2 / "cpu.weight", "100" if high else "1")
        elif "cpu" in self.v1:
            _write(self.v1["cpu"] / "cpu.shares", "1024" if high else "2")

    def oom_kills(self) -> int:
        """How many processes of this group the kernel's OOM killer has killed."""
        if "memory" in self.hier.v2_controllers and self.v2:
            return _count(self.v2 / "memory.events", "oom_kill")
        if "memory" in self.v1:
            return _count(self.v1["memory"] / "memory.oom_control", "oom_kill")
        return 0

    def kill(self) -> None:
        """SIGKILL every process in the groups and wait until they are gone."""
        if self.v2 is not None:
            _write(self.v2 / "cgroup.kill", "1")
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left, then delete the groups."""
        self.kill()
        for d in ([self.v2] if self.v2 else []) + list(self.v1.values()):
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)

    def pids(self) -> set[int]:
        """The processes in the groups now."""
        pids: set[int] = set()
        for f in self.procs_files:
            try:
                pids.update(int(x) for x in f.read_text().split())
            except OSError:
                pass
        return pids

    def _apply(self, limits: Limits) -> None:
        v2 = self.v2
        v2c = self.hier.v2_controllers if v2 else frozenset()
        if v2 and "memory" in v2c:
            _write(v2 / "memory.max", str(limits.memory_bytes))
            _write(v2 / "memory.swap.max", "0")
        elif "memory" in self.v1:
            _write(self.v1["memory"] / "memory.limit_in_bytes", str(limits.memory_bytes))
        if v2 and "pids" in v2c:
            _write(v2 / "pids.max", str(limits.pids))
        elif "pids" in self.v1:
            _write(self.v1["pids"] / "pids.max", str(limits.pids))
        if limits.cpu_cores > 0:
            period = 100_000
            quota = str(int(limits.cpu_cores * period))
            if v2 and "cpu" in v2c:
                _write(v2 / "cpu.max", f"{quota} {period}")
            elif "cpu" in self.v1:
                _write(self.v1["cpu"] / "cpu.cfs_period_us", str(period))
                _write(self.v1["cpu"] / "cpu.cfs_quota_us", quota)
        self.set_priority(high=False)


def _prepare_v2(own: Path, base_name: str) -> tuple[Path | None, frozenset[str]]:
    """Make ``own/base_name`` and enable what controllers we can for its children."""
    base = _mkdir(own / base_name)
    if base is None:
        return None, frozenset()
    wanted = {"memory", "pids", "cpu"}
    for parent in (own, base):
        available = set((parent / "cgroup.controllers").read_text().split())
        for ctl in wanted & available:
            _write(parent / "cgroup.subtree_control", f"+{ctl}")
    enabled = set((base / "cgroup.subtree_control").read_text().split())
    return base, frozenset(enabled & wanted)


def _mounts() -> list[tuple[Path, str, str]]:
    rows = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            rows.append((Path(parts[1]), parts[2], parts[3]))
    return rows


def _own_paths() -> dict[str, str]:
    """Controller -> our group's path ("" is the v2 hierarchy)."""
    own: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for ctl in controllers.split(",") if controllers else [""]:
            own[ctl] = path
    return own


def _mkdir(path: Path) -> Path | None:
    try:
        path.mkdir(exist_ok=True)
        return path
    except OSError:
        return None


def _write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass  # a limit this host does not offer: the rlimits still hold


def _count(path: Path, key: str) -> int:
    try:
        return counter(path.read_text(), key)
    except OSError:
        return 0


def counter(text: str, key: str) -> int:
    """The value of ``key`` in a cgroup's flat-keyed file (``memory.events``: "oom_kill 2"), 0
    when it is not there."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0
