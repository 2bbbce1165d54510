"""A case's ``model``: its trace replayed at the exercise's modelled sizes, and ``too_slow``.

The grader calls :func:`model_case` with the exercise's ``[model]`` table (read once by
:meth:`ModelSpec.from_table`), a case's switch trace, the case's S (a rank's input bytes in the
run) and, when ``[model] ranks_per_node`` places its ranks on nodes, the case's params. It
answers the case's ``model`` dict for the verdict JSON and, when the modelled time exceeds the
exercise's time bound beyond its tolerance, English and Chinese messages that say by how much and
which term dominates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..contract.units import SizeError, format_seconds, format_size, parse_size, plural
from ..switch.trace import SwitchTrace
from .bound import NAMES, Bound
from .replay import Replay, replay, replay_sizes
from .schema import FloorJSON, ModelJSON, SizeRow
from .topology import ModelError, Topology, get_topology

DEFAULT_TOPOLOGY = "h100x8"
DEFAULT_SIZES = ("4KiB", "1MB", "1GB")
KEYS = ("topology", "sizes", "time_bound", "tolerance", "collective", "contention", "cases",
        "ranks_per_node", "compute", "parameters", "advice", "floor")
#: how far under its floor a run may be and still be at it (the formulas' rounding)
FLOOR_SLACK = 1e-9


def busbw_factor(kind: str | None, n: int) -> float:
    """nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md); 1 when the kind is unknown."""
    if n <= 1:
        return 1.0
    if kind == "all_reduce":
        return 2 * (n - 1) / n
    if kind in ("reduce_scatter", "all_gather", "all_to_all"):
        return (n - 1) / n
    return 1.0


def nccl_size(kind: str | None, n: int, size: float) -> float:
    """nccl-tests' size for a rank's input of ``size`` bytes: all_gather's is its output."""
    return size * n if kind == "all_gather" else size


@dataclass(frozen=True)
class Floor:
    """``[model] floor``: the lowest modelled time (at each modelled size) and the fewest bytes
    the busiest rank sends (in the run) that any correct algorithm reaches. A run under it was
    mis-measured: it is flagged and never ranked."""

    time: Bound
    bytes: Bound


@dataclass(frozen=True)
class ModelSpec:
    """An exercise's ``[model]`` table."""

    topology: str = DEFAULT_TOPOLOGY
    sizes: tuple[int, ...] = tuple(parse_size(s) for s in DEFAULT_SIZES)
    time_bound: Bound | None = None
    tolerance: float = 0.05
    collective: str | None = None  # the collective the exercise implements (busbw's factor)
    contention: bool = True
    #: cases the bound judges (None: all). A tiny uneven case (7 elements on 2 ranks: chunks of 4
    #: and 3) scales its rounding up with it, 14 % over the ring's bound at 1 GB.
    cases: tuple[str, ...] | None = None
    #: the case parameter that says how many ranks each node holds (None: the topology's own
    #: gpus_per_node): a 2 × 2 case on the 2 × 8 machine puts rank r on node r // 2
    ranks_per_node: str | None = None
    #: seconds per call of a function the judge hands the learner (a pipeline stage), a formula
    #: of the bound's names (None: such calls cost nothing)
    compute: Bound | None = None
    #: case parameters the formulas may use by name (e.g. the number of microbatches)
    parameters: tuple[str, ...] = ()
    #: what a too_slow message advises, (English, Chinese), instead of the dominant term's
    #: generic advice (a tree for latency, splitting for bandwidth)
    advice: tuple[str, str] | None = None
    floor: Floor | None = None

    def variables(self, n: int, size: float, topo: Topology,
                  params: Mapping[str, int | str] | None) -> dict[str, float]:
        """The formulas' names at one modelled size: n, S, the topology's, the declared case
        parameters, and ``c`` (the compute seconds per call)."""
        names: dict[str, float] = {"n": n, "S": size, **topo.params()}
        for name in self.parameters:
            if params is None or name not in params:
                raise ModelError(f"[model] parameters names {name!r}: the case must give it")
            names[name] = float(params[name])
        names["c"] = self.compute(**names) if self.compute is not None else 0.0
        return names

    def models(self, case_name: str | None) -> bool:
        """Whether the case called ``case_name`` is modelled: ``cases`` lists it, or lists none."""
        return self.cases is None or case_name is None or case_name in self.cases

    def judges(self, case_name: str | None) -> bool:
        """Whether the time bound applies to the case called ``case_name``."""
        return self.time_bound is not None and self.models(case_name)

    @classmethod
    def from_table(cls, table: Mapping[str, object] | None, collective: str | None = None
                   ) -> ModelSpec:
        """Read ``[model]`` (None: the defaults); :class:`ModelError` names a bad key or value.

        ``collective`` (the exercise's built-in, canonical) is the default for ``collective``.
        """
        table = dict(table or {})
        unknown = sorted(set(table) - set(KEYS))
        if unknown:
            raise ModelError(f"[model]: unknown key(s) {', '.join(unknown)}; known: {', '.join(KEYS)}")
        topology = _checked_topology(table.get("topology", DEFAULT_TOPOLOGY))
        sizes = _checked_sizes(table.get("sizes", list(DEFAULT_SIZES)))
        tolerance = _checked_tolerance(table.get("tolerance", 0.05))
        contention = _checked_contention(table.get("contention", True))
        cases = _checked_cases(table.get("cases"))
        per_node = _checked_ranks_per_node(table.get("ranks_per_node"))
        parameters = _checked_parameters(table.get("parameters", []))
        names = (*NAMES, *parameters)
        advice = _checked_advice(table.get("advice"))
        floor = _checked_floor(table.get("floor"))
        bound, compute = table.get("time_bound"), table.get("compute")
        modelled = _parsed_sizes(sizes)
        return cls(topology, modelled,
                   Bound(bound, (*names, "c")) if bound is not None else None, float(tolerance),
                   _checked_collective(table.get("collective", collective)), contention,
                   tuple(cases) if cases is not None else None, per_node,
                   Bound(compute, names) if compute is not None else None, tuple(parameters),
                   (advice["en"], advice["zh"]) if advice is not None else None,
                   Floor(Bound(floor["time"], (*names, "c")), Bound(floor["bytes"], (*names, "c")))
                   if floor is not None else None)

    def topology_for(self, world_size: int, params: Mapping[str, int | str] | None = None,
                     extra_topologies: Path | None = None) -> Topology:
        """The topology a case runs on: with ``ranks_per_node``, its ranks placed as the case's
        ``params`` say (:meth:`Topology.placed`); :class:`ModelError` when they do not say."""
        topo = get_topology(self.topology, extra_topologies)
        if self.ranks_per_node is None:
            return topo
        if params is None or self.ranks_per_node not in params:
            raise ModelError(f"[model] ranks_per_node names the case parameter "
                             f"{self.ranks_per_node!r}: the case's params must give it")
        return topo.placed(params[self.ranks_per_node], world_size)


def _checked_topology(topology: Any) -> str:
    """``[model] topology``: a known topology's name."""
    if not isinstance(topology, str):
        raise ModelError("[model] topology must be a topology's name, e.g. \"h100x8\"")
    get_topology(topology)
    return topology


def _checked_sizes(sizes: Any) -> list[Any]:
    """``[model] sizes``: a non-empty list (its sizes parsed by :func:`_parsed_sizes`)."""
    if not isinstance(sizes, list) or not sizes:
        raise ModelError("[model] sizes must be a list such as [\"4KiB\", \"1MB\", \"1GB\"]")
    return sizes


def _parsed_sizes(sizes: list[Any]) -> tuple[int, ...]:
    """``[model] sizes`` in bytes."""
    try:
        return tuple(parse_size(s) for s in sizes)
    except SizeError as exc:
        raise ModelError(f"[model] sizes: {exc}") from None


def _checked_tolerance(tolerance: Any) -> int | float:
    """``[model] tolerance``: a number >= 0."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
        raise ModelError("[model] tolerance must be a number >= 0 (0.05 is 5 %)")
    return tolerance


def _checked_contention(contention: Any) -> bool:
    """``[model] contention``: true or false."""
    if not isinstance(contention, bool):
        raise ModelError("[model] contention must be true or false")
    return contention


def _checked_cases(cases: Any) -> list[str] | None:
    """``[model] cases``: a list of case names, if given."""
    if cases is not None and (not isinstance(cases, list)
                              or not all(isinstance(c, str) for c in cases)):
        raise ModelError("[model] cases must be a list of case names")
    return cases


def _checked_ranks_per_node(per_node: Any) -> str | None:
    """``[model] ranks_per_node``: a case parameter's name, if given."""
    if per_node is not None and (not isinstance(per_node, str) or not per_node):
        raise ModelError("[model] ranks_per_node must name a case parameter, e.g. "
                         "\"ranks_per_node\"")
    return per_node


def _checked_parameters(parameters: Any) -> list[str]:
    """``[model] parameters``: a list of case parameters' names (identifiers)."""
    if not isinstance(parameters, list) or not all(isinstance(p, str) and p.isidentifier()
                                                   for p in parameters):
        raise ModelError("[model] parameters must list case parameter names, e.g. "
                         "[\"microbatches\"]")
    return parameters


def _checked_advice(advice: Any) -> dict[str, str] | None:
    """``[model] advice``: { en, zh } strings, if given."""
    if advice is not None and (not isinstance(advice, dict) or set(advice) != {"en", "zh"}
                               or not all(isinstance(v, str) for v in advice.values())):
        raise ModelError("[model] advice must be { en = \"...\", zh = \"...\" }")
    return advice


def _checked_collective(collective: object) -> str | None:
    """``[model] collective``: the built-in collective the exercise replaces, by name, if any."""
    if collective is not None and not isinstance(collective, str):
        raise ModelError("[model] collective must be a built-in collective's name, e.g. "
                         "\"all_reduce\"")
    return collective


def _checked_floor(floor: object) -> Mapping[str, object] | None:
    """``[model] floor``: { time, bytes } (their formulas checked by :class:`Bound`), if given."""
    if floor is not None and (not isinstance(floor, dict) or set(floor) != {"time", "bytes"}):
        raise ModelError("[model] floor must be { time = \"<formula>\", bytes = \"<formula>\" }")
    return floor


class Sweep(NamedTuple):
    """A trace replayed at several sizes: a row per size and the replay it was read from."""

    rows: list[SizeRow]
    replays: list[Replay]


def sweep(trace: SwitchTrace, topology: Topology, sizes: list[int] | tuple[int, ...],
          run_size: int, collective: str | None = None, contention: bool = True,
          compute: Callable[[int], float] | None = None, record: bool = False) -> Sweep:
    """Per modelled size: the trace replayed with every message's bytes × size / ``run_size``,
    every size in one walk of the trace (:func:`.replay.replay_sizes`; ``record``: each replay
    keeps its transfers' spans).

    Each row: size (B), time_s, algbw and busbw (GB/s, GB = 1e9 B, nccl-tests' conventions),
    steps, latency_s, transfer_s and compute_s on the critical path, link_bytes per link class,
    complete. ``compute(size)``: the seconds one call of a judge's function costs at that size.
    """
    if run_size < 1:
        raise ModelError("the run's size S must be at least 1 byte to scale messages from it")
    n, rows = trace["world_size"], list[SizeRow]()
    replays = replay_sizes(trace, topology, [size / run_size for size in sizes], contention,
                           [compute(size) if compute else 0.0 for size in sizes], record)
    for size, r in zip(sizes, replays, strict=True):
        algbw = nccl_size(collective, n, size) / r.time / 1e9 if r.time > 0 else 0.0
        rows.append({"size": size, "time_s": r.time, "algbw": algbw,
                     "busbw": algbw * busbw_factor(collective, n), "steps": r.steps,
                     "latency_s": r.latency, "transfer_s": r.transfer, "compute_s": r.compute,
                     "link_bytes": r.link_bytes, "complete": r.complete})
    return Sweep(rows, replays)


@dataclass
class CaseModel:
    """What :func:`model_case` answers."""

    model: ModelJSON  # the case's ``model`` in the verdict JSON
    #: False: the replay lost something the switch saw (a defect of the judge: no bound judged)
    complete: bool = True
    too_slow: bool = False
    #: when too slow, (English, Chinese) each: where and by how much against the bound with its
    #: numbers, which term dominates, and what helps (:attr:`message` joins them)
    headline: tuple[str, str] = ("", "")
    why: tuple[str, str] = ("", "")
    advice: tuple[str, str] = ("", "")
    worst: SizeRow | None = None  # the row the messages are about
    bound_steps: float = 0.0  # α the bound pays at the worst row's size
    #: the replay at the size the trace view draws (:func:`view_size`), with its spans
    drawn: Replay | None = None

    def composed(self, path: tuple[str, str] = ("", ""),
                 advice: tuple[str, str] | None = None) -> tuple[str, str]:
        """The too_slow message, (English, Chinese), with ``path`` (what the critical path
        shows) after the headline and ``advice`` instead of :attr:`advice` when given."""
        advice = advice or self.advice
        en = " ".join(p for p in (self.headline[0], path[0], self.why[0], advice[0]) if p)
        return en, "".join((self.headline[1], path[1], self.why[1], advice[1]))

    @property
    def message(self) -> str:
        """The too_slow message in English ("" when not too slow)."""
        return self.composed()[0]

    @property
    def message_zh(self) -> str:
        """The too_slow message in Chinese ("" when not too slow)."""
        return self.composed()[1]


def view_size(spec: ModelSpec, model: ModelJSON | None) -> int:
    """The size the trace view models: the worst row over the bound, else the middle size."""
    rows = model["sizes"] if model else []
    over = [r for r in rows if r.get("over") and r.get("bound_s")]
    if over:
        return int(max(over, key=lambda r: r["time_s"] / (r.get("bound_s") or 1.0))["size"])
    return int(spec.sizes[len(spec.sizes) // 2])


def unmodelled(case_name: str | None) -> ModelJSON:
    """The ``model`` of a case that ``[model] cases`` does not list: no sizes, and a note that
    says why."""
    return {"modelled": False, "sizes": [], "bound": None,
            "note": {"en": f"Case {case_name} is not modelled: the exercise's [model] cases do not "
                           "list it, so no time is modelled or judged for it.",
                     "zh": f"用例 {case_name} 不建模：本题 [model] 的 cases 未列出它，因此不为它建模"
                           "或评判时间。"}}


def _dominant(row: SizeRow, topo: Topology) -> tuple[str, str, str, str]:
    """Which term dominates this row, and the generic advice for it: (English, Chinese,
    advice in English, advice in Chinese)."""
    t, lat, xfer, steps = row["time_s"], row["latency_s"], row["transfer_s"], row["steps"]
    work = row.get("compute_s", 0.0)
    if work > max(lat, xfer):
        return (f"Compute dominates: {format_seconds(work)} of your {format_seconds(t)} is the "
                "judge's functions one after another on the critical path.",
                f"计算占主导：{format_seconds(t)} 中有 {format_seconds(work)} 是关键路径上依次执行的"
                "评测函数。",
                "Overlap them: split the work so that ranks compute at the same time "
                "(microbatches).", "让计算重叠：切分工作，使各 rank 同时计算（微批次）。")
    alphas = {link.alpha for link in topo.links.values()}
    if lat >= xfer:
        per = format_seconds(next(iter(alphas))) if len(alphas) == 1 else "α"
        return (f"Latency dominates: {plural(steps, 'step')} × {per} = {format_seconds(lat)} of your "
                f"{format_seconds(t)} (bytes/β: {format_seconds(xfer)}).",
                f"延迟占主导：{steps} 步 × {per} = {format_seconds(lat)}（共 {format_seconds(t)}；"
                f"字节/β 部分 {format_seconds(xfer)}）。",
                "Fewer steps one after another would help: transfers that do not depend on each "
                "other can run at the same time.", "减少先后相继的步数会更快：互不依赖的传输可以"
                "同时进行。")
    return (f"Bandwidth dominates: {format_seconds(xfer)} of your {format_seconds(t)} is bytes/β "
            f"on the critical path ({plural(steps, 'step')} × α = {format_seconds(lat)}).",
            f"带宽占主导：{format_seconds(t)} 中有 {format_seconds(xfer)} 是关键路径上的字节/β"
            f"（{steps} 步 × α = {format_seconds(lat)}）。",
            "Send fewer bytes one after another: split the data so that every link works at "
            "once.", "减少串行发送的字节：切分数据，让每条链路同时工作。")


def model_case(trace: SwitchTrace, run_size: int, spec: ModelSpec, case_name: str | None = None,
               extra_topologies: Path | None = None, params: Mapping[str, int | str] | None = None,
               sent: list[int] | None = None) -> CaseModel:
    """Replay a finished case's ``trace`` at ``spec``'s sizes and judge it against the bound.

    ``run_size``: the case's S in the run (one rank's input bytes), from which every message is
    scaled. ``case_name``: the bound judges only the cases ``spec.cases`` names (all if None).
    ``extra_topologies``: a file with more topologies (a fitted machine), if any. ``params``: the
    case's parameters, which place its ranks on nodes when ``spec.ranks_per_node`` names one.
    ``sent``: the bytes each rank sent, held to the floor's bytes.
    """
    if not spec.models(case_name):
        return CaseModel(unmodelled(case_name))
    n = trace["world_size"]
    topo = spec.topology_for(n, params, extra_topologies)
    names = {size: spec.variables(n, size, topo, params) for size in spec.sizes}  # once each
    rows, replays = sweep(trace, topo, spec.sizes, run_size, spec.collective, spec.contention,
                          lambda size: names[size]["c"], record=True)
    worst = _judge_rows(rows, spec, names, case_name)
    model = _model_json(spec, topo, run_size, rows, case_name)
    if spec.floor is not None:
        model["floor"] = _floor(spec.floor, rows, names, spec.variables(n, run_size, topo, params),
                                sent)
    complete = all(row["complete"] for row in rows)
    drawn = replays[list(spec.sizes).index(view_size(spec, model))]
    if worst is None:
        return CaseModel(model, complete, drawn=drawn)
    return _too_slow(CaseModel(model, complete, drawn=drawn), spec, topo, n, worst,
                     names[worst.row["size"]])


class _Worst(NamedTuple):
    """The row furthest over its bound, and that bound (s)."""

    row: SizeRow
    bound: float


def _judge_rows(rows: list[SizeRow], spec: ModelSpec, names: dict[int, dict[str, float]],
                case_name: str | None) -> _Worst | None:
    """Set each row's ``bound_s`` and ``over``; the row furthest over its bound, if any."""
    worst: SizeRow | None = None
    worst_bound = 0.0
    for row in rows:
        row["bound_s"] = None
        row["over"] = False
        if spec.time_bound is not None and row["complete"]:
            bound = spec.time_bound(**names[row["size"]])
            row["bound_s"] = bound
            row["over"] = spec.judges(case_name) and row["time_s"] > bound * (1 + spec.tolerance)
            if row["over"] and (worst is None
                                or row["time_s"] / bound > worst["time_s"] / worst_bound):
                worst, worst_bound = row, bound
    return None if worst is None else _Worst(worst, worst_bound)


def _model_json(spec: ModelSpec, topo: Topology, run_size: int, rows: list[SizeRow],
                case_name: str | None) -> ModelJSON:
    """The case's ``model`` (but its floor): the topology, how messages were scaled, its rows
    and the bound."""
    sizes = ", ".join(format_size(s) for s in spec.sizes)
    return {
        "topology": topo.as_json(), "contention": spec.contention, "run_size": run_size,
        "scaled": {"en": f"Modelled at {sizes}: every message's bytes scaled by size / "
                         f"{run_size} B (this case's S).",
                   "zh": f"按 {sizes} 建模：每条消息的字节数按 规模 / {run_size} B"
                         "（本用例的 S）缩放。"},
        "sizes": rows,
        "bound": None if spec.time_bound is None else {
            "formula": spec.time_bound.formula, "tolerance": spec.tolerance,
            "judged": spec.judges(case_name)},
    }


def _too_slow(case: CaseModel, spec: ModelSpec, topo: Topology, n: int, worst: _Worst,
              at: dict[str, float]) -> CaseModel:
    """``case`` judged too slow at its worst row (``at``: the formulas' names at its size),
    with the messages that say where, by how much, which term dominates and what helps."""
    assert spec.time_bound is not None  # a row is over its bound only where there is one
    t, bound = worst.row["time_s"], worst.bound
    over = 100 * (t / bound - 1)
    why, why_zh, advice, advice_zh = _dominant(worst.row, topo)
    if spec.advice is not None:  # the exercise knows what helps better than the generic words
        advice, advice_zh = spec.advice
    where, where_zh = topo.described(n)
    shown, size = spec.time_bound.shown(**at), format_size(worst.row["size"])
    tolerance = f"{100 * spec.tolerance:g} %"
    headline = (f"Too slow with {where}, S = {size}: your modelled time is {format_seconds(t)}, "
                f"{over:.0f} % over the bound {shown} (tolerance {tolerance}).",
                f"在 {where_zh}上、S = {size} 时太慢：你的建模时间为 {format_seconds(t)}，比上限 "
                f"{shown}（容差 {tolerance}）多 {over:.0f} %。")
    return replace(case, too_slow=True, headline=headline, why=(why, why_zh),
                   advice=(advice, advice_zh), worst=worst.row,
                   bound_steps=spec.time_bound.steps(**at))


def _floor(floor: Floor, rows: list[SizeRow], names: dict[int, dict[str, float]],
           run_names: dict[str, float], sent: list[int] | None) -> FloorJSON:
    """The case's ``model.floor``: each row's ``floor_s``, the bytes floor in the run, and
    ``below`` when the run is under either (the judge mis-measured it: never ranked)."""
    for row in rows:
        row["floor_s"] = floor.time(**names[row["size"]])
    least = floor.bytes(**run_names)
    below = any(row["complete"] and row["time_s"] < row["floor_s"] * (1 - FLOOR_SLACK)
                for row in rows) or (sent is not None and len(sent) > 0
                                     and max(sent) < least * (1 - FLOOR_SLACK))
    out: FloorJSON = {"time": floor.time.formula, "bytes": floor.bytes.formula,
                      "bytes_floor": least, "below": below}
    if below:
        out["note"] = {"en": "This run measured below the lowest time or bytes any correct "
                             "algorithm reaches: the judge missed part of it, so it is not ranked.",
                       "zh": "本次运行的测量值低于任何正确算法所能达到的最低时间或字节数：评测机"
                             "漏计了其中一部分，因此不参与排名。"}
    return out


def crossing(a: tuple[SwitchTrace, int], b: tuple[SwitchTrace, int], topology: Topology,
             low: float, high: float, contention: bool = True) -> float | None:
    """The size in [low, high] where traces ``a`` and ``b`` (each with its run's S) take equally
    long, by bisection; None when one is faster over the whole interval."""

    def gap(size: float) -> float:
        return (replay(a[0], topology, size / a[1], contention).time
                - replay(b[0], topology, size / b[1], contention).time)

    g_low, g_high = gap(low), gap(high)
    if abs(g_low) < 1e-12 or abs(g_high) < 1e-12 or g_low * g_high > 0:
        return None  # equal at an end (the same algorithm twice), or one is always faster
    for _ in range(60):
        mid = (low * high) ** 0.5
        if gap(mid) * g_low > 0:
            low = mid
        else:
            high = mid
    return cast(float, (low * high) ** 0.5)
