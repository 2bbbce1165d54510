"""A case's message in English and Chinese, written once from its decision
(:mod:`.decide`) and its facts: which rank, line and call, what the judge stopped, how far over a
bound and why (``budget``, ``model.slow``), or what the grader's hook said.

Where grading is given the runs to compare with (``grade_case(facts, runs)``), the diagnosis
(``grading.diagnosis.case.explain``) puts the run's evidence into these words before the case's
result is made: a wrong answer's cause, where an over_budget rank sent more than the reference,
where a failing run left the reference's.
"""

from __future__ import annotations

from ..contract import values
from ..contract.primitives import DISPLAY, call_name
from ..contract.protocol import RankReport, RawCase
from ..contract.units import plural
from ..contract.verdicts import Verdict
from ..exercise.exercises import Exercise
from ..model import slow
from ..switch import symm
from ..switch.accounting import graded_calls
from ..switch.core import Limits
from ..switch.explain import deadlock_facts, deadlock_message, stuck_message
from ..switch.trace import Refusal
from .budget import over_budget
from .compare import said_by
from .decide import Decision, Reason
from .facts import CaseFacts
from .instead import instead
from .torch_advice import advice
from .torch_zh import in_chinese

#: why a rank's code may be refused an OS call: it is confined (``cjudge.real.confine``)
CONFINED_HINT = (" (each rank is confined: no sockets, shared memory, file changes or access to "
                 "other processes; ranks communicate only through the allowed primitives)",
                 "（每个 rank 都受到限制：不能创建套接字、使用共享内存、修改文件或访问其他进程；"
                 "rank 之间只能通过允许的原语通信）")
#: a finished case whose replay lost what the switch saw: the judge's fault, never a skipped bound
INCOMPLETE_MODEL = ("the judge could not model this case: its cost model lost communication "
                    "the switch recorded. This is a defect of the judge, not of your code; it "
                    "has been logged",
                    "评测机无法为本用例建模：成本模型丢失了交换机记录的通信。这是评测机的缺陷，"
                    "不是你的代码的问题；已记录在日志中")


def words(facts: CaseFacts, decision: Decision) -> tuple[str, str]:
    """The case's message, (English, Chinese), for ``decision`` on ``facts``."""
    exercise, raw, reason = facts.exercise, facts.raw, decision.reason
    if reason is Reason.REFUSED and decision.refusal is not None:
        return _refused(exercise, decision.refusal)
    if reason is Reason.STOPPED:
        return _stop_message(raw, decision.verdict)
    if reason is Reason.RANK_FAILED and decision.report is not None:
        return _rank_failure(exercise, raw, decision.report)
    if reason is Reason.WRONG_RESULT and facts.wrong is not None:
        return facts.wrong.message()
    if reason is Reason.NOT_FINISHED and decision.report is not None:
        r, state = decision.report["rank"], decision.report["state"]
        return (f"rank {r} never finished its call (state: {state})",
                f"rank {r} 没有完成调用（状态：{state}）")
    if reason is Reason.RACE:
        return symm.explain(raw["trace"]["race"])
    if reason is Reason.OVER_BYTES and decision.rank is not None:
        return _over_bytes(facts, decision.rank)
    if reason in (Reason.TRAFFIC, Reason.OVER_MEMORY) and decision.said is not None:
        return f"correct, but {decision.said[0]}", _CORRECT_BUT_ZH[reason] + decision.said[1]
    if decision.said is not None:  # the grader's own words: computes, a freed buffer, traffic
        return decision.said
    if reason is Reason.INCOMPLETE_MODEL:
        return INCOMPLETE_MODEL
    if reason is Reason.TOO_SLOW and facts.modelled is not None:
        return slow.explain(facts.modelled, facts.schedule, raw["trace"], exercise.allowed)
    if reason is Reason.OVER_STEPS and decision.rank is not None:
        return _over_steps(facts, decision.rank, *decision.numbers)
    if reason is Reason.CORRECT and decision.rank is not None:
        return _correct(facts, decision.rank)
    raise ValueError(f"no words for {decision.reason} without its evidence")


#: "correct, but" in Chinese, as each of the grader's over-budget words follows it
_CORRECT_BUT_ZH = {Reason.TRAFFIC: "结果正确，但 ", Reason.OVER_MEMORY: "结果正确，但"}


def _correct(facts: CaseFacts, worst: int) -> tuple[str, str]:
    """An accepted case's message: the most a rank sent against its bound."""
    sent, bounds = facts.sent, facts.bounds
    if len(set(bounds)) > 1:  # per-rank bounds: say the rank's own
        return (f"correct; every rank within its bound (rank {worst}: {sent[worst]} of "
                f"{bounds[worst]} bytes)",
                f"正确；每个 rank 都在其上限内（rank {worst}：{sent[worst]} / {bounds[worst]} 字节）")
    return (f"correct; at most {sent[worst]} of {bounds[worst]} bytes per rank",
            f"正确；每个 rank 最多发送 {sent[worst]} / {bounds[worst]} 字节")


def _over_bytes(facts: CaseFacts, worst: int) -> tuple[str, str]:
    """Over budget on bytes: where the worst rank's bytes went and what its receivers needed
    (the grader's optional ``needs``, in words)."""
    exercise, spec, trace = facts.exercise, facts.spec, facts.raw["trace"]
    needs = getattr(exercise.grader, "needs", None)
    calls = [c for c in graded_calls(trace) if c["rank"] == worst]
    why = said_by(needs, spec["params"], spec["world_size"], spec["inputs"], worst,
                  calls) if needs else None
    return over_budget(trace, worst, facts.sent[worst], facts.bounds[worst],
                       values.element_size(spec), why)


def _over_steps(facts: CaseFacts, worst: int, limit: int, steps: int) -> tuple[str, str]:
    """Over budget on steps: the rank's messages and steps against the algorithm's."""
    msgs = facts.messages
    assert facts.exercise.messages is not None  # only an exercise with a [messages] rule
    what, what_zh = facts.exercise.messages.algorithm
    return (f"correct, but rank {worst} sent {plural(msgs[worst], 'message')}; {what} needs {limit} "
            f"steps and this rank took {steps:,} (a message sent to a peer while the "
            "previous one to it is in flight is a segment of the same step; one sent after waiting "
            "for it, and every empty message, is a step of its own)",
            f"结果正确，但 rank {worst} 发送了 {msgs[worst]:,} 条消息；{what_zh}只需要 {limit} 条（步），"
            f"这个 rank 用了 {steps:,} 步（上一条发往同一对端的消息仍在传输时发出的消息是同一步"
            "的分段；等它完成后才发出的消息，以及每条空消息，各算一步）")


def _rank_failure(exercise: Exercise, raw: RawCase, report: RankReport) -> tuple[str, str]:
    """A failed rank's message: the call refused, the judge's limit, the memory it ran out of,
    the signal that killed it, or what it raised and at which call."""
    err = report["error"]
    assert err is not None  # only a failed rank's report
    r = report["rank"]
    at = f"rank {r}, line {err['line']}" if err["line"] else f"rank {r}"
    at_zh = f"rank {r} 第 {err['line']} 行" if err["line"] else f"rank {r}"
    if err["kind"] == "forbidden":
        op = DISPLAY.get(err.get("op", ""), err.get("op", "?"))
        return _forbidden(exercise, at, at_zh, op)
    if err["kind"] == "judge":  # a limit of the judge stopped the rank: never the learner's
        return (f"rank {r}: {err['message']}. This is a limit of the judge, not a fault of your "
                "code", f"rank {r}：{err.get('message_zh') or err['message']}。这是评测机的限制，"
                "不是你的代码的问题")
    if err["kind"] == "memory":
        return (f"{at} ran out of memory: {err['message']}",
                f"{at_zh} 内存不足：{err['message']}")
    # the judge's words have a Chinese twin; torch.distributed's have theirs in a table
    said_zh = err.get("message_zh") or in_chinese(err["message"]) or err["message"]
    if err["kind"] == "signal":
        return (f"rank {r} was killed: {err['message']}",
                f"rank {r} {err.get('message_zh') or '被终止：' + err['message']}")
    hint, hint_zh = CONFINED_HINT if err["type"] == "PermissionError" else ("", "")
    fix = advice(err["message"])
    if fix is not None:
        hint, hint_zh = f"{hint}. Fix: {fix[0]}", f"{hint_zh}。改法：{fix[1]}"
    call = _failed_call(raw, r, err["line"])
    if call is not None:
        at, at_zh = f"rank {r}'s {call} at line {err['line']}", f"rank {r} 第 {err['line']} 行的 {call}"
    return (f"{at} raised {err['type']}: {err['message']}{hint}",
            f"{at_zh} 抛出 {err['type']}：{said_zh}{hint_zh}")


def _failed_call(raw: RawCase, rank: int, line: int | None) -> str | None:
    """The call (as the learner wrote it) that the switch failed on ``rank`` at ``line``, the
    one whose wait raised the rank's error; None if the switch failed none there."""
    if line is None:
        return None
    failed = [q for q in raw["trace"]["requests"]
              if q["rank"] == rank and q.get("failed") and q["line"] == line]
    if not failed:
        return None
    last = max(failed, key=lambda q: q["posted"])
    return call_name(last["api"], last["kind"])


def _refused(exercise: Exercise, first: Refusal) -> tuple[str, str]:
    """The first refused call's message, with what the exercise allows and, where known, the
    idiom's replacement."""
    r, line = first["rank"], first["line"]
    at = f"rank {r}, line {line}" if line else f"rank {r}"
    at_zh = f"rank {r} 第 {line} 行" if line else f"rank {r}"
    en, zh = _forbidden(exercise, at, at_zh, call_name(first["api"], first["kind"]))
    then = instead(first["kind"], exercise.allowed)  # the idiom's replacement, where known
    return (f"{en}; {then[0]}", f"{zh}；{then[1]}") if then else (en, zh)


def _forbidden(exercise: Exercise, at: str, at_zh: str, call: str) -> tuple[str, str]:
    """A refused call's message, (English, Chinese), with what the exercise allows."""
    return (f"{at}: calls {call}, which this exercise does not allow (allowed: "
            f"{', '.join(exercise.allowed)})",
            f"{at_zh}：调用了本题禁止的 {call}（只允许：{'、'.join(exercise.allowed)}）")


def _stop_message(raw: RawCase, verdict: Verdict) -> tuple[str, str]:
    if verdict is Verdict.DEADLOCK:
        return deadlock_message(deadlock_facts(raw["trace"], raw["ranks"]))
    if verdict is Verdict.TIME_LIMIT:
        # the limit the ranks ran under, as their record says (a diagnosis's runs have less)
        return _late_message(raw) or stuck_message(raw["trace"], raw["ranks"],
                                                   raw["trace"]["limit_s"])
    if raw["stop"] == "trace_limit" and raw["trace"].get("limit") == "record":
        return ("the case's record (its results, errors and calls) is larger than the judge "
                "keeps; the judge cut it",
                "该用例的记录（结果、错误和通信调用）超过了评测机保存的上限，评测机已将其截断")
    if raw["stop"] == "trace_limit":
        return (f"the ranks made more than {Limits().requests} communication calls in one case; "
                "the judge stopped them",
                f"单个用例中的通信调用超过 {Limits().requests} 次，评测机已停止运行")
    if verdict is Verdict.OUTPUT_LIMIT:
        return ("the ranks printed more than the output limit", "输出超过了限制")
    return ("a rank went over the memory limit", "有 rank 超出了内存限制")


def _late_message(raw: RawCase) -> tuple[str, str] | None:
    """Where the switch stopped the case at its time (``limit == "time"``): the call a rank
    was told would not finish, with its line; None if no rank was told."""
    if raw["trace"].get("limit") != "time":
        return None
    for report in raw["ranks"]:
        err = report["error"]
        if err is not None and err.get("message_zh"):
            at = f", line {err['line']}" if err["line"] else ""
            at_zh = f" 第 {err['line']} 行" if err["line"] else ""
            return (f"rank {report['rank']}{at}: {err['message']}",
                    f"rank {report['rank']}{at_zh}：{err['message_zh']}")
    return None
