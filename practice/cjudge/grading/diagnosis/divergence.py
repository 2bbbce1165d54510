"""The first step where a wrong run departs from the exercise's reference run on the same inputs.

Both runs' switch traces are compared message by message: each rank's sends in program order,
by destination and payload. The earliest send (fewest sends before it) that differs from the reference's
send at the same place is where the learner's algorithm first left the reference's; later
differences follow from it. When the grader can read what a message carries
(``chunk_reader``: a chunk and whose contributions it sums), the step is said in the exercise's
terms: in a ring, its phase (a reduce-scatter sends partial sums, an all-gather complete ones or blocks),
its step in the phase, and the chunk each run sends; a payload it cannot read is shown by its
first elements. A departing send that carries what a receive of the same rank delivered only
later, the receive waited on after the send, read that buffer before its wait.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...contract.protocol import CaseSpec
from ...contract.units import plural
from ...switch.trace import SwitchTrace
from .indices import index_mistake
from .said import Cause, algorithm
from .sends import Send, sends
from .sums import described, summed_slice
from .values import graded_dtype, ordinal, same, shown_list
from .waits import read_before_wait

Reader = Callable[[list[float]], tuple[int, list[int]] | None]


def _same(a: Send, b: Send, dtype: str) -> bool:
    return a.dst == b.dst and same(a.values, b.values, dtype)


def first_departure(learner: SwitchTrace, reference: SwitchTrace, dtype: str = "float64"
                    ) -> tuple[Send, Send | None] | None:
    """The learner's earliest send that differs from the reference's at its place (its
    destination, or its payload beyond ``dtype``'s tolerance) and that reference send (None
    when the reference sends no more), or None when none differs.
    Earliest is fewest sends before it, then lowest rank: the same whatever the interleaving,
    and a departure caused by an earlier one's data comes after it."""
    mine, ref = sends(learner), sends(reference)
    found: list[tuple[Send, Send | None]] = []
    for rank, (ours, theirs) in enumerate(zip(mine, ref, strict=True)):
        for i, send in enumerate(ours):
            if i >= len(theirs) or not _same(send, theirs[i], dtype):
                found.append((send, theirs[i] if i < len(theirs) else None))
                break
        else:
            if len(theirs) > len(ours):  # stopped early: departs where the next send is missing
                gap = Send(rank, len(ours), None, None, None)
                found.append((gap, theirs[len(ours)]))
    return min(found, key=lambda f: (f[0].index, f[0].rank)) if found else None


def _label(read: Reader | None, send: Send, world: int) -> tuple[str, str]:
    """What a send carries, in the exercise's terms when the grader can read it."""
    if send.values is None:
        return "nothing", "什么也没有"
    found = read(list(send.values)) if read is not None and send.values else None
    noun, noun_zh = getattr(read, "noun", ("chunk", "块"))
    if found is None:
        return shown_list(send.values), f" {shown_list(send.values)} "
    chunk, ranks = found
    if getattr(read, "mode", "reduce") == "gather":
        return f"block {chunk} (rank {chunk}'s)", f"第 {chunk} 块（rank {chunk} 的）"
    if len(ranks) == world:
        return (f"the complete {noun} {chunk} (every rank's sum)",
                f"已完整的第 {chunk} {noun_zh}（所有 rank 之和）")
    if ranks == [send.rank]:
        return (f"{noun} {chunk} holding rank {send.rank}'s own input only",
                f"第 {chunk} {noun_zh}（只有 rank {send.rank} 自己的输入）")
    names = ", ".join(map(str, ranks))
    return f"{noun} {chunk} summing ranks {names}", f"第 {chunk} {noun_zh}（rank {names} 之和）"


def _phase(read: Reader | None, send: Send, world: int) -> tuple[str, str] | None:
    """The reference send's phase: an all-gather's messages are complete sums or whole blocks,
    a reduce-scatter's partial sums."""
    found = read(list(send.values)) if read is not None and send.values else None
    if found is None:
        return None
    if getattr(read, "mode", "reduce") == "gather" or len(found[1]) == world:
        return "all-gather", "all-gather"
    return "reduce-scatter", "reduce-scatter"


def _seen_before(send: Send, mine: list[Send], ref: list[Send], algo: str) -> tuple[str, str]:
    """Where the departing send's values were sent before: an earlier send of the rank's own
    (it did not move on), or another step of the reference's (an off-by-one)."""
    if send.values is None:
        return "", ""
    same = next((s for s in mine[:send.index] if s.values == send.values), None)
    if same is not None:
        at = f", line {same.line}" if same.line else ""
        at_zh = f"，第 {same.line} 行" if same.line else ""
        return (f" (again the values of its own {ordinal(same.index + 1)} send{at})",
                f"（又是它第 {same.index + 1} 次发送的值{at_zh}）")
    other = next((s for s in ref if s.values == send.values and s.index != send.index), None)
    if other is not None:
        return (f" ({algo}'s {ordinal(other.index + 1)} send)",
                f"（即第 {other.index + 1} 次发送的内容）")
    return "", ""


def explain(exercise: Any, spec: CaseSpec, learner: SwitchTrace,
            reference: SwitchTrace, recognise: bool = True) -> Cause | None:
    """Where the learner's run first departs from the reference's, in the exercise's terms:
    a buffer sent before the receive into it was waited on, or the step that differs (its
    payload recognised as a chunk, a piece or an earlier send unless ``recognise`` is False:
    the recognition was a coincidence of the case's values). None when the reference sends
    nothing or every message matched."""
    found = first_departure(learner, reference, graded_dtype(spec))
    return describe(exercise, spec, learner, reference, found, recognise) \
        if found is not None else None


def describe(exercise: Any, spec: CaseSpec, learner: SwitchTrace, reference: SwitchTrace,
             found: tuple[Send, Send | None], recognise: bool = True) -> Cause | None:
    """:func:`explain`'s words for the departure ``found`` (:func:`first_departure`'s); None
    when the reference sends nothing. Without ``recognise``, the learner's payload is shown by
    its values only: the reference's side and the phase are read as always."""
    ref_sends = sends(reference)
    if not any(ref_sends):
        return None
    make = getattr(exercise.grader, "chunk_reader", None)
    world = spec["world_size"]
    read = make(spec["params"], world, spec["inputs"]) if make is not None else None
    algo, algo_zh = algorithm(exercise)
    send, want = found
    late = read_before_wait(learner, send, want)
    if late is not None:
        return Cause(*late, named=True)
    ring = all(s.dst == (s.rank + 1) % world for ours in ref_sends for s in ours)
    phase, step = _place(exercise, read, found, ref_sends, world, ring)
    before, before_zh = _matched_before(read, want, phase, step, ref_sends, world, (algo, algo_zh))
    where = f"{phase[0]} step {step}" if phase else f"{ordinal(step)} send"
    where_zh = f"{phase[1]} 第 {step} 步" if phase else f"第 {step} 次发送"
    again = _seen_before(send, sends(learner)[send.rank], ref_sends[send.rank], algo) \
        if recognise else ("", "")
    ours, ours_zh = _ours(read if recognise else None, send, learner, world, (where, where_zh),
                          again)
    theirs, theirs_zh = _theirs(read, want, world, (algo, algo_zh))
    piece, piece_zh = _pieces(read, send, want, spec["inputs"], (algo, algo_zh)) \
        if recognise else ("", "")
    index = _index(read, send, want, spec) \
        if recognise and (ring or "ranks_per_node" in spec["params"]) else None
    if index is not None:
        piece, piece_zh = piece + index.en, piece_zh + index.zh
    return Cause(f"{before}your run first departs from {algo} at {ours}, where {theirs}{piece}",
                 f"{before_zh}你的运行最早偏离{algo_zh}之处是 {ours_zh}；而{theirs_zh}{piece_zh}",
                 named=bool(before or again[0] or piece))


def _place(exercise: Any, read: Reader | None, found: tuple[Send, Send | None],
           ref_sends: list[list[Send]], world: int, ring: bool) -> tuple[tuple[str, str] | None, int]:
    """Where the departure is in the reference's run: a ring's phase (None elsewhere) and the
    step in it, else the step among the rank's sends. An all-reduce ring whose messages the
    grader cannot read is split into its two phases by count."""
    send, want = found
    phase = _phase(read, want, world) if want is not None and ring else None
    step = want.index + 1 if want is not None else send.index + 1
    if ring and read is None and want is not None and world > 1 and \
            getattr(exercise, "builtin", "") == "all_reduce" and \
            all(len(ours) % (2 * (world - 1)) == 0 for ours in ref_sends):  # all-reduce rings
        first = want.index % (2 * (world - 1)) < world - 1
        phase = ("reduce-scatter", "reduce-scatter") if first else ("all-gather", "all-gather")
        return phase, want.index % (world - 1) + 1
    if phase is not None and want is not None:
        same = [s for s in ref_sends[want.rank] if _phase(read, s, world) == phase]
        step = same.index(want) + 1 if want in same else step
    return phase, step


def _matched_before(read: Reader | None, want: Send | None, phase: tuple[str, str] | None, step: int,
                    ref_sends: list[list[Send]], world: int, algo: tuple[str, str]) -> tuple[str, str]:
    """At the first step of a ring's phase, the phase before it that the run got right ("your
    reduce-scatter matches ring's; "), where the grader reads the messages; else nothing."""
    if phase is None or want is None or step != 1:
        return "", ""
    earlier = ref_sends[want.rank][:want.index]
    done = _phase(read, earlier[-1], world) if earlier else None
    if done is None or done == phase:
        return "", ""
    return f"your {done[0]} matches {algo[0]}'s; ", f"你的 {done[1]} 与{algo[1]}一致；"


def _ours(read: Reader | None, send: Send, learner: SwitchTrace, world: int, where: tuple[str, str],
          again: tuple[str, str]) -> tuple[str, str]:
    """The learner's side of the departure: what its rank sends there (and where it sent that
    before), or that it sends nothing more, or nothing at all."""
    if send.values is None and send.index:  # the learner stopped sending
        last = sends(learner)[send.rank][send.index - 1].line
        at, at_zh = (f" (the last at line {last})", f"（最后一次在第 {last} 行）") if last else ("", "")
        return (f"rank {send.rank}, which sends nothing more after its {plural(send.index, 'send')}{at}",
                f"rank {send.rank}：它在 {send.index} 次发送{at_zh}之后不再发送")
    if send.values is None:
        return _silent(send, learner)
    line, line_zh = (f" (line {send.line})", f"（第 {send.line} 行）") if send.line else ("", "")
    what, what_zh = _label(read, send, world)
    return (f"rank {send.rank}'s {where[0]}{line}: it sends {what}{again[0]} to rank {send.dst}",
            f"rank {send.rank} 的 {where[1]}{line_zh}：它把{what_zh}{again[1]}发给 rank {send.dst}")


def _silent(send: Send, learner: SwitchTrace) -> tuple[str, str]:
    """A rank that sends nothing, and what it did instead where it only receives."""
    ours, ours_zh = f"rank {send.rank}, which sends nothing", f"rank {send.rank}：它什么也不发送"
    got = sorted((q["posted"], q["line"]) for q in learner["requests"]
                 if q["rank"] == send.rank and q["graded"] and q["kind"] == "recv")
    if got and got[-1][1]:  # where it was instead: receiving
        ours += f", only receives ({plural(len(got), 'receive')}, the last at line {got[-1][1]})"
        ours_zh += f"，只接收（{len(got)} 次接收，最后一次在第 {got[-1][1]} 行）"
    return ours, ours_zh


def _theirs(read: Reader | None, want: Send | None, world: int, algo: tuple[str, str]
            ) -> tuple[str, str]:
    """The reference's side of the departure: what it sends there, or that it sends no more."""
    if want is None:
        return f"{algo[0]} sends nothing more there", f"{algo[1]}此时不再发送"
    what, what_zh = _label(read, want, world)
    return f"{algo[0]} sends {what} to rank {want.dst}", f"{algo[1]}此时把{what_zh}发给 rank {want.dst}"


def _index(read: Reader | None, send: Send, want: Send | None, spec: CaseSpec) -> Cause | None:
    """An index mistake (:mod:`.indices`) where both runs send the same peer another piece: a
    chunk the grader reads, else a slice of the summed inputs as long as the reference's."""
    if want is None or not send.values or not want.values or send.dst != want.dst or \
            send.dst is None:
        return None
    world, params = spec["world_size"], spec["params"]
    if read is not None:
        mine, theirs = read(list(send.values)), read(list(want.values))
        if mine is None or theirs is None:
            return None
        noun = getattr(read, "noun", ("chunk", "块"))
        return index_mistake(mine[0], theirs[0], send.rank, send.dst, world, params, noun)
    size = len(want.values)
    ours, at = summed_slice(send.values, spec["inputs"]), summed_slice(want.values, spec["inputs"])
    if ours is None or at is None or len(send.values) != size or (ours[0] - at[0]) % size:
        return None
    return index_mistake(ours[0] // size, at[0] // size, send.rank, send.dst, world, params,
                         ("piece", "段"))


def _pieces(read: Reader | None, send: Send, want: Send | None, inputs: list[Any],
            algo: tuple[str, str]) -> tuple[str, str]:
    """Without a reader: which slice of the summed inputs each run's payload is, when both are
    slices at different places (a piece chosen by the wrong index)."""
    if read is not None or want is None or not send.values or not want.values:
        return "", ""
    ours, theirs = summed_slice(send.values, inputs), summed_slice(want.values, inputs)
    if ours is None or theirs is None or ours[0] == theirs[0]:
        return "", ""
    mine, want_said = described(send.values, inputs), described(want.values, inputs)
    assert mine is not None and want_said is not None
    return (f": yours is {mine[0]}, {algo[0]}'s is {want_said[0]}, another piece of the buffer",
            f"：你的是{mine[1]}，而{algo[1]}的是{want_said[1]}，取的是缓冲区的另一段")
