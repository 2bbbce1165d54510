"""What each call of the judge's functions (a pipeline stage, a backward, a layer) was given,
against the reference's calls on the same inputs: the first suspect where outputs differ.

The switch records every call's input by digest (``SwitchTrace["computes"]``) and, where the
input is exactly a graded message's payload, that message. A rank's calls are compared with
the reference's same rank's, in program order; the earliest that was given another input is
named where the evidence says what it was given instead: the input the reference gives another
of its calls (another microbatch's stash, another layer's weights), or the buffer of a receive
or an all-gather before the request that fills it completed (what the request writes there is
the input the reference's call was given). Such a call is named by the learner's parameter
(``stage_fn``, ``layer_fn``), and comes before a departing send that its rank posts after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...contract.primitives import call_name
from ...contract.protocol import CaseSpec
from ...switch.functions import digest
from ...switch.trace import SwitchTrace, recorded_bytes
from .divergence import first_departure
from .said import Cause, algorithm
from .values import ordinal


@dataclass(frozen=True)
class Given:
    """One graded call of a judge's function by a rank, in its program order."""

    rank: int
    index: int  # among the rank's calls of that function
    name: str
    line: int | None
    inputs: tuple[str, ...]  # digests of the tensors it was given, in order
    t: int
    message: int | None  # the graded message whose payload it was given, if any


def given(trace: SwitchTrace) -> list[dict[str, list[Given]]]:
    """Per rank, per function name, its graded calls in program order."""
    out: list[dict[str, list[Given]]] = [{} for _ in range(trace["world_size"])]
    for c in sorted(trace.get("computes", []), key=lambda c: c["t"]):
        if not c.get("graded", True):
            continue
        calls = out[c["rank"]].setdefault(c["name"], [])
        calls.append(Given(c["rank"], len(calls), c["name"], c["line"],
                           tuple(c.get("inputs") or [c["input"]]), c["t"], c.get("message")))
    return out


def _first_other(learner: SwitchTrace, reference: SwitchTrace) -> tuple[Given, Given] | None:
    """The learner's earliest call given another input than the reference's call at its place
    (fewest calls of its function before it, then lowest rank), with that reference call."""
    found = []
    for ours, theirs in zip(given(learner), given(reference), strict=True):
        for name, mine in ours.items():
            want = theirs.get(name, [])
            pair = next(((a, b) for a, b in zip(mine, want, strict=False)
                         if a.inputs != b.inputs), None)
            if pair is not None:
                found.append(pair)
    return min(found, key=lambda p: (p[0].index, p[0].rank)) if found else None


def _filled(trace: SwitchTrace) -> dict[int, str]:
    """Request id -> digest of what the request writes into its buffer, where the trace says:
    a receive's message payload, an all-gather's members' inputs in group order."""
    out: dict[int, str] = {}
    for m in trace["messages"]:
        data = recorded_bytes(m.get("data"))
        if data is not None:
            out[m["recv"]] = digest(data)
    for c in trace.get("collectives", []):
        parts = [recorded_bytes(d) for d in c.get("data", [])]
        if c["kind"] == "all_gather" and parts and all(p is not None for p in parts):
            whole = digest(b"".join(p for p in parts if p is not None))
            out.update((r, whole) for r in c["requests"])
    return out


def _unfinished(learner: SwitchTrace, call: Given, wanted: str) -> tuple[str, int | None] | None:
    """(api, line) of the receive or all-gather of the call's rank whose buffer ``call`` was
    given (the message whose payload it was, or the request that writes ``wanted``, the input
    the reference's call was given, into its buffer) where the call came before that request's
    wait completed (or it was never waited); None otherwise."""
    message = next((m for m in learner["messages"] if m["id"] == call.message), None)
    filled = _filled(learner) if message is None else {}
    for req in sorted(learner["requests"], key=lambda r: r["posted"]):
        mine = message["recv"] == req["id"] if message is not None else \
            req["rank"] == call.rank and req["posted"] <= call.t and filled.get(req["id"]) == wanted
        if not mine:
            continue
        done = [w["end"] for w in learner["waits"] if w["request"] == req["id"]]
        if done and all(end is not None and end <= call.t for end in done):
            continue
        return call_name(req["api"], req["kind"]), req["line"]
    return None


def _never_made(learner: SwitchTrace, reference: SwitchTrace, rank: int,
                wanted: str) -> tuple[str, int, int] | None:
    """(api, how many of that kind the rank made, which of them in the reference delivers
    ``wanted``) where a receive or an all-gather of the reference's ``rank`` delivers
    ``wanted`` and the learner's rank made fewer calls of that kind than that one's place;
    None otherwise."""
    filled = _filled(reference)
    mine = [r for r in learner["requests"] if r["rank"] == rank and r["graded"]]
    for req in sorted(reference["requests"], key=lambda r: r["posted"]):
        if req["rank"] != rank or not req["graded"] or filled.get(req["id"]) != wanted:
            continue
        kind = [r for r in reference["requests"] if r["rank"] == rank and r["graded"]
                and r["kind"] == req["kind"] and r["posted"] <= req["posted"]]
        made = sum(1 for r in mine if r["kind"] == req["kind"])
        if made < len(kind):
            return call_name(req["api"], req["kind"]), made, len(kind)
        return None
    return None


def _kept(learner: SwitchTrace, call: Given, got: str,
          wanted: str) -> tuple[Given, Given] | None:
    """The rank's earlier calls of another of the judge's functions that were given ``got``
    (what ``call`` was given) and ``wanted`` (what it needed): an input kept for the wrong call,
    e.g. a forward's for another microbatch's backward; None where either is not found."""
    calls = [c for name, made in given(learner)[call.rank].items() if name != call.name
             for c in made if c.t < call.t]
    had = next((c for c in reversed(calls) if got in c.inputs), None)
    needed = next((c for c in calls if wanted in c.inputs), None)
    if had is None or needed is None or had.name != needed.name:
        return None
    return had, needed


def _parameter(exercise: Any, spec: CaseSpec, rank: int, name: str) -> str:
    """The learner's name for the judge's function ``name`` (its parameter in the exercise's
    signature: ``stage_fn``, ``bwd``); ``name`` where the inputs do not say."""
    rank_input = spec["inputs"][rank]
    call = rank_input.get("call") if isinstance(rank_input, dict) else None
    params: tuple[str, ...] = exercise.parameters
    if isinstance(call, list):
        for param, arg in zip(params, call, strict=False):
            if isinstance(arg, dict) and arg.get("fn") == name and param:
                return param
    return name


def upstream(learner: SwitchTrace, reference: SwitchTrace, dtype: str) -> bool:
    """Whether the first call given another input than the reference's comes before the run's
    first departing send, on the same rank: what that call made is what departed, so the call
    is the cause, not the send."""
    found = _first_other(learner, reference)
    sent = first_departure(learner, reference, dtype)
    return found is not None and sent is not None and sent[0].rank == found[0].rank \
        and sent[0].posted >= found[0].t


def explain(exercise: Any, spec: CaseSpec, learner: SwitchTrace,
            reference: SwitchTrace) -> Cause | None:
    """The first call of a judge's function that was given something else than the reference
    gives it, where the evidence names what; None otherwise."""
    found = _first_other(learner, reference)
    if found is None:
        return None
    mine, want = found
    algo, algo_zh = algorithm(exercise)
    fn = _parameter(exercise, spec, mine.rank, mine.name)
    at, at_zh = (f" (line {mine.line})", f"（第 {mine.line} 行）") if mine.line else ("", "")
    call = f"rank {mine.rank}'s {ordinal(mine.index + 1)} call of {fn}{at}"
    call_zh = f"rank {mine.rank} 第 {mine.index + 1} 次调用 {fn}{at_zh}"
    k = next(i for i, (a, b) in enumerate(zip(mine.inputs, want.inputs, strict=False)) if a != b)
    early = _unfinished(learner, mine, want.inputs[k])
    if early is not None:
        api, line = early
        where, where_zh = (f" at line {line}", f"第 {line} 行的") if line else ("", "")
        return Cause(f"{call} was given the buffer of its {api}{where} before that request "
                     "completed: wait on the request before the call",
                     f"{call_zh}拿到的是{where_zh} {api} 的缓冲区，而那个请求当时尚未完成："
                     "调用之前先等待该请求", named=True)
    theirs = given(reference)[mine.rank].get(mine.name, [])
    other = next((c for c in theirs if c.index != mine.index and len(c.inputs) > k
                  and c.inputs[k] == mine.inputs[k]), None)
    if other is None:
        return None
    what, what_zh = ("input", "输入") if len(mine.inputs) == 1 else \
        (f"{ordinal(k + 1)} tensor", f"第 {k + 1} 个张量")
    missing = _never_made(learner, reference, mine.rank, want.inputs[k])
    if missing is not None:
        api, made, due = missing
        return Cause(f"{call} was given, as its {what}, the one {algo} gives its "
                     f"{ordinal(other.index + 1)} call of {fn}: what it needs is what {algo}'s "
                     f"{ordinal(due)} {api} delivers, and rank {mine.rank} makes only {made} "
                     f"{api} call{'s' if made != 1 else ''}: make that one too (a loop that stops "
                     "one short?)",
                     f"{call_zh}的{what_zh}是{algo_zh}第 {other.index + 1} 次调用 {fn} 时的那个：它需要"
                     f"的是{algo_zh}第 {due} 次 {api} 送来的数据，而 rank {mine.rank} 只做了 {made} "
                     f"次 {api}：把那一次也做了（循环少跑了一次？）", named=True)
    kept = _kept(learner, mine, mine.inputs[k], want.inputs[k])
    if kept is not None:
        had, needed = kept
        source = _parameter(exercise, spec, mine.rank, had.name)
        return Cause(f"{call} was given, as its {what}, what its {ordinal(had.index + 1)} call "
                     f"of {source} was given, where it needs what its "
                     f"{ordinal(needed.index + 1)} call of {source} was given: keep each "
                     f"{source} call's input (a stash per microbatch or layer) and hand {fn} the "
                     "one of its own",
                     f"{call_zh}的{what_zh}是第 {had.index + 1} 次调用 {source} 时传入的那个，而它需要的是"
                     f"第 {needed.index + 1} 次调用 {source} 时传入的：把每次调用 {source} 的输入保存"
                     f"下来（按微批次或按层各存一份），交给与之对应的那次 {fn} 调用", named=True)
    return Cause(f"{call} was given, as its {what}, the one {algo} gives its "
                 f"{ordinal(other.index + 1)} call of {fn}, not its {ordinal(want.index + 1)}: "
                 "another microbatch's or layer's; hand each call its own",
                 f"{call_zh}的{what_zh}是{algo_zh}第 {other.index + 1} 次调用 {fn} 时的那个，"
                 f"而不是第 {want.index + 1} 次的：属于另一个微批次或另一层；请把每次调用自己的那份交给它",
                 named=True)
