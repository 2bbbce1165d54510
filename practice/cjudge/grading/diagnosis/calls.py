"""The first collective call where a wrong run departs from the exercise's reference run on the
same inputs, for exercises built on collectives (no point-to-point messages to compare).

The switch records each graded collective's inputs (``Collective.data``). Each rank's collective
calls, in program order, are compared with the reference's: the kind of call, then its input.
The earliest call that differs (fewest calls before it, then lowest rank) is where the learner's
run first leaves the reference's: a different call, an input given to another of the
reference's calls (an off-by-one among the layers or steps), an input scaled by the world size
(a mean taken too early), or an input that differs from the first element on (the values
computed before the call).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...contract.primitives import DISPLAY, call_name
from ...contract.protocol import CaseSpec
from ...contract.units import plural
from ...contract.values import close, element_matches
from ...switch.symm import KINDS as SYMM_KINDS
from ...switch.trace import SwitchTrace, recorded_values
from .padding import unpadded
from .said import Cause, algorithm
from .sources import arguments, other_slice, returned
from .splits import Splits, departure, elements
from .values import graded_dtype, ordinal, same, shown_apart

#: the symmetric-memory calls that touch one rank's buffer
SYMM_ACCESS = frozenset(SYMM_KINDS.values())


@dataclass(frozen=True)
class Call:
    """One graded collective call of a rank, in its program order."""

    rank: int
    index: int  # among the rank's graded collective calls
    kind: str
    api: str
    values: tuple[float | int, ...] | None  # its input, when recorded
    line: int | None
    request: int = 0  # its request's id
    splits: Splits | None = None  # all_to_all: elements for each member, when recorded
    op: str | None = None  # a reduction's op ("sum", "max", ...)
    root: int | None = None  # a rooted collective's root (global rank)
    buffer: int | None = None  # a symmetric-memory load's or store's: whose buffer (global rank)


def calls(trace: SwitchTrace) -> list[list[Call]]:
    """Per rank, its graded collective calls in program order (a run of symmetric-memory
    accesses in (kind, buffer) order), with their inputs."""
    inputs: dict[int, tuple[float | int, ...] | None] = {}
    made: dict[int, tuple[str | None, int | None]] = {}  # request -> its collective's op, root
    for coll in trace["collectives"]:
        for i, rid in enumerate(coll["requests"]):
            data = coll.get("data")
            got = recorded_values(data[i]) if data and i < len(data) else None
            inputs[rid] = None if got is None else tuple(got)
            made[rid] = coll["op"], coll["root"]
    out: list[list[Call]] = [[] for _ in range(trace["world_size"])]
    for req in sorted(trace["requests"], key=lambda r: r["posted"]):
        if req["graded"] and req["kind"] not in ("send", "recv") and req["kind"] in DISPLAY:
            rank = req["rank"]
            op, root = made.get(req["id"], (None, None))
            out[rank].append(Call(rank, len(out[rank]), req["kind"],
                                  call_name(req["api"], req["kind"]), inputs.get(req["id"]),
                                  req["line"], req["id"], elements(req),
                                  op=op, root=root,
                                  buffer=req["peer"] if req["kind"] in SYMM_ACCESS else None))
    return [_accesses_in_any_order(row) for row in out]


def _accesses_in_any_order(row: list[Call]) -> list[Call]:
    """``row`` with each run of symmetric-memory loads and stores (between barriers and other
    calls) put in (kind, buffer) order, stably: the order of a rank's accesses between two
    barriers is its own to choose, so only which buffers it loads from and stores into is
    compared with the reference's."""
    out: list[Call] = []
    run: list[Call] = []
    for call in [*row, None]:
        if call is not None and call.kind in SYMM_ACCESS:
            run.append(call)
            continue
        out += sorted(run, key=lambda c: (c.kind, c.buffer or 0))
        run = []
        if call is not None:
            out.append(call)
    return out


def differs(mine: Call, theirs: Call, dtype: str = "float64") -> bool:
    """Whether a call departs from the reference's at its place: another call, another
    reduction op or root, other split sizes, or another input (where both are recorded) beyond
    ``dtype``'s tolerance."""
    if mine.kind != theirs.kind or _made_otherwise(mine, theirs):
        return True
    if mine.splits is not None and theirs.splits is not None and mine.splits != theirs.splits:
        return True
    return mine.values is not None and theirs.values is not None and \
        not same(mine.values, theirs.values, dtype)


def _made_otherwise(mine: Call, theirs: Call) -> bool:
    """Whether the two calls (of one kind) reduce with another op, have another root, or load
    from (store into) another rank's buffer."""
    return (mine.op, mine.root, mine.buffer) != (theirs.op, theirs.root, theirs.buffer)


def _otherwise_words(mine: Call, want: Call, algo: tuple[str, str]) -> Cause:
    """The words for a call of the reference's kind made with another op, root or buffer."""
    a, a_zh = algo
    if mine.op != want.op:
        default, default_zh = (", the default: leave op out", "，即默认值：不要传 op") \
            if want.op == "sum" else ("", "")
        wanted = str(want.op).upper()
        return Cause(f"it reduces with {str(mine.op).upper()} where {a} reduces with {wanted}: "
                     f"pass op=ReduceOp.{wanted}{default}",
                     f"它用 {str(mine.op).upper()} 归约，而{a_zh}用 {wanted}：应传 "
                     f"op=ReduceOp.{wanted}{default_zh}", named=True)
    if mine.buffer != want.buffer:
        verb, verb_zh = ("stores into", "写入") if mine.kind == "symm_write" else \
            ("loads from", "读取")
        return Cause(f"it {verb} rank {mine.buffer}'s buffer where {a} {verb} rank "
                     f"{want.buffer}'s", f"它{verb_zh}的是 rank {mine.buffer} 的缓冲区，而{a_zh}"
                     f"{verb_zh}的是 rank {want.buffer} 的", named=True)
    return Cause(f"its root is rank {mine.root} where {a}'s is rank {want.root}",
                 f"它的根是 rank {mine.root}，而{a_zh}的根是 rank {want.root}", named=True)


def first_departure(learner: SwitchTrace, reference: SwitchTrace, dtype: str = "float64"
                    ) -> tuple[Call | None, Call | None] | None:
    """The learner's earliest call that differs from the reference's at its place (beyond
    ``dtype``'s tolerance) and that reference call (either None where one run makes no more
    calls), or None when none differs."""
    found: list[tuple[int, int, Call | None, Call | None]] = []
    for rank, (ours, theirs) in enumerate(zip(calls(learner), calls(reference), strict=True)):
        for i in range(max(len(ours), len(theirs))):
            mine = ours[i] if i < len(ours) else None
            want = theirs[i] if i < len(theirs) else None
            if mine is None or want is None or differs(mine, want, dtype):
                found.append((i, rank, mine, want))
                break
    if not found:
        return None
    # at one place, a call that differs says more than a rank that stopped calling
    _, _, mine, want = min(found, key=lambda f: (f[0], f[2] is None, f[1]))
    return mine, want


def _argument_slice(got: tuple[float | int, ...], spec: CaseSpec, rank: int,
                    exercise: Any) -> str | None:
    """``param[0:2]``: the slice of one of the rank's tensor arguments that ``got`` is, as it
    was passed in; None if it is none."""
    if not got:
        return None
    for name, data in arguments(spec, rank, exercise):
        if len(got) > len(data):
            continue
        for start in range(len(data) - len(got) + 1):
            if tuple(data[start:start + len(got)]) == got:
                whole = start == 0 and len(got) == len(data)
                return name if whole else f"{name}[{start}:{start + len(got)}]"
    return None


def _what_differs(mine: Call, want: Call, ref_calls: list[Call], algo: tuple[str, str],
                  spec: CaseSpec, exercise: Any, recognise: bool) -> Cause:
    """How the learner's input departs from the reference's at the same call: named where the
    input is recognised (another call's, an argument as passed in, another rank's slice, a
    returned value; not unless ``recognise``) or has another size, not where it only differs
    from an element on."""
    a, a_zh = algo
    dtype = graded_dtype(spec)
    alike = [c for c in ref_calls if c.kind == mine.kind and same(c.values, mine.values, dtype)]
    if recognise and alike and alike[0].index != want.index:
        j = alike[0].index
        return Cause(f"its input is the one {a} gives its {ordinal(j + 1)} call, not its "
                     f"{ordinal(want.index + 1)}",
                     f"它的输入是{a_zh}给第 {j + 1} 次调用的，而不是第 {want.index + 1} 次的", True)
    assert mine.values is not None and want.values is not None
    given = _argument_slice(mine.values, spec, mine.rank, exercise) if recognise else None
    if given is not None:
        return Cause(f"its input is {given}, as it was passed in, where {a}'s is computed from it",
                     f"它的输入是传入时的 {given}，原样未变，而{a_zh}的输入是由它算出的", True)
    made = (other_slice(mine.values, want.values, spec, mine.rank, exercise, algo) or
            returned(mine.values, spec, mine.rank, exercise)) if recognise else None
    if made is not None:
        return Cause(*made, named=True)
    padded = unpadded(len(mine.values), len(want.values), spec, mine.rank, exercise)
    if padded is not None:
        return padded
    scaled = _scaled(mine.values, want.values, spec["world_size"], algo)
    if scaled is not None:
        return scaled
    if len(mine.values) != len(want.values):
        return Cause(f"its input has {len(mine.values)} elements where {a}'s has "
                     f"{len(want.values)}",
                     f"它的输入有 {len(mine.values)} 个元素，而{a_zh}的有 {len(want.values)} 个", True)
    i = next(k for k, (g, w) in enumerate(zip(mine.values, want.values, strict=True))
             if not element_matches(g, w, dtype))
    got, wanted = shown_apart(mine.values[i], want.values[i])
    return Cause(f"its input differs from {a}'s at element {i} ({got} where {a} has {wanted}): "
                 "what this rank computed or passed before the call already differs",
                 f"它的输入从第 {i} 个元素起与{a_zh}的不同（{got}，而{a_zh}为 {wanted}）：这个 rank "
                 "在调用之前算出或传入的值就已不同")


def _scaled(mine: tuple[float | int, ...], want: tuple[float | int, ...], world: int,
            algo: tuple[str, str]) -> Cause | None:
    """"its input is the reference's divided by n": the whole input scaled by the world size or
    its inverse (a mean taken before the call, or twice), on any draw; None otherwise."""
    if world < 2 or len(mine) != len(want) or not any(want):
        return None
    a, a_zh = algo
    for factor, en, zh in (
            (1 / world, f"divided by n = {world}: a mean taken before the call (or twice), or a "
             f"division {a} does not make", f"除以了 n = {world}：在调用之前（或重复）求了平均，"
             f"或者做了{a_zh}没有的除法"),
            (world, f"multiplied by n = {world}: a value counted n times, or a scaling {a} does "
             "not make", f"乘以了 n = {world}：某个值被计了 n 次，或者做了{a_zh}没有的缩放")):
        if all(close(g, w * factor, 1e-5, 1e-6) for g, w in zip(mine, want, strict=True)):
            return Cause(f"its input is {a}'s {en}", f"它的输入是{a_zh}的输入{zh}", True)
    return None


def explain(exercise: Any, spec: CaseSpec, learner: SwitchTrace,
            reference: SwitchTrace, recognise: bool = True) -> Cause | None:
    """Where the learner's collective calls first depart from the reference's, in words (an
    input recognised as another value unless ``recognise`` is False: the recognition was a
    coincidence of the case's values); None when the reference makes none or every call
    matched."""
    found = first_departure(learner, reference, graded_dtype(spec))
    return describe(exercise, spec, learner, reference, found, recognise) \
        if found is not None else None


def describe(exercise: Any, spec: CaseSpec, learner: SwitchTrace, reference: SwitchTrace,
             found: tuple[Call | None, Call | None], recognise: bool = True) -> Cause | None:
    """:func:`explain`'s words for the departure ``found`` (:func:`first_departure`'s); None
    when the reference makes no collective call."""
    ref_calls = calls(reference)
    if not any(ref_calls):
        return None
    mine, want = found
    algo = algorithm(exercise)
    a, a_zh = algo
    if mine is None:
        assert want is not None
        if not want.index:
            return Cause(f"rank {want.rank} makes no collective call, where {a} calls {want.api}",
                         f"rank {want.rank} 没有任何集合通信调用，而{a_zh}调用了 {want.api}")
        last = calls(learner)[want.rank][-1]
        at, at_zh = (f" (the last, {last.api}, at line {last.line})",
                     f"（最后一次是第 {last.line} 行的 {last.api}）") if last.line else ("", "")
        return Cause(f"rank {want.rank} makes only {plural(want.index, 'collective call')}{at}; "
                     f"{a} then makes its {ordinal(want.index + 1)}, {want.api}",
                     f"rank {want.rank} 只做了 {want.index} 次集合通信{at_zh}；而{a_zh}接着做第 "
                     f"{want.index + 1} 次：{want.api}")
    at, at_zh = (f" (line {mine.line})", f"（第 {mine.line} 行）") if mine.line else ("", "")
    # a load, a store or a barrier of symmetric memory is a call, not a collective
    noun, noun_zh = ("call", "调用") if mine.kind.startswith("symm") else \
        ("collective call", "集合通信")
    call = f"rank {mine.rank}'s {ordinal(mine.index + 1)} {noun}, {mine.api}{at}"
    call_zh = f"rank {mine.rank} 的第 {mine.index + 1} 次{noun_zh} {mine.api}{at_zh}"
    if want is None:
        why = Cause(f"{a} makes no such call", f"{a_zh}没有这次调用")
    elif mine.kind != want.kind:
        why = Cause(f"{a} calls {want.api} there", f"{a_zh}此处调用的是 {want.api}")
    elif _made_otherwise(mine, want):
        why = _otherwise_words(mine, want, algo)
    elif mine.splits is not None and want.splits is not None and mine.splits != want.splits \
            and (mine.values is None or want.values is None or mine.values == want.values):
        why = Cause(*departure(mine.splits, want.splits, reference, want.request, mine.api, algo),
                    named=True)
    else:
        why = _what_differs(mine, want, ref_calls[mine.rank], algo, spec, exercise, recognise)
    return Cause(f"your run first departs from {a} at {call}: {why.en}",
                 f"你的运行最早偏离{a_zh}之处是 {call_zh}：{why.zh}", why.named)
