"""The trusted side of grading: plan cases from a seed, grade what a runtime reports, summarise.

Nothing here runs learner code: these functions run outside any sandbox (and in the browser
beside the simulated ranks) and are the only place where verdicts are decided.
"""

from __future__ import annotations

import functools
import logging
import math
import operator
import random
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from .. import __version__
from ..contract import values
from ..contract.primitives import CANONICAL, DISPLAY, PROCESS_GROUP_METHODS
from ..contract.protocol import CaseSpec, RankReport, RawCase, TensorData
from ..contract.units import plural
from ..contract.verdict_json import CaseResult, MemoryUse, Sample, VerdictJSON
from ..contract.verdicts import Verdict
from ..exercise.exercises import Case, Exercise
from ..kit.where import FreedDead
from ..model import slow
from ..model.case import model_case
from ..model.steps import steps_per_rank
from ..switch import symm
from ..switch.accounting import graded_calls
from ..switch.core import Limits
from ..switch.explain import DeadlockFacts, deadlock_facts, deadlock_message, stuck_message
from .budget import over_budget
from .chunks import summary
from .facts import CaseFacts, WrongAnswer
from .instead import instead
from .root_zero import root_zero
from .torch_zh import in_chinese

#: why a rank's code may be refused an OS call: it is confined (``cjudge.real.confine``)
CONFINED_HINT = (" (each rank is confined: no sockets, shared memory, file changes or access to "
                 "other processes; ranks communicate only through the allowed primitives)",
                 "（每个 rank 都受到限制：不能创建套接字、使用共享内存、修改文件或访问其他进程；"
                 "rank 之间只能通过允许的原语通信）")
#: a judge defect found while grading (the learner is never blamed for it)
log = logging.getLogger(__name__)
#: a finished case whose replay lost what the switch saw: the judge's fault, never a skipped bound
INCOMPLETE_MODEL = ("the judge could not model this case: its cost model lost communication "
                    "the switch recorded. This is a defect of the judge, not of your code; it "
                    "has been logged",
                    "评测机无法为本用例建模：成本模型丢失了交换机记录的通信。这是评测机的缺陷，"
                    "不是你的代码的问题；已记录在日志中")
STOP_VERDICTS = {"deadlock": Verdict.DEADLOCK, "time_limit": Verdict.TIME_LIMIT,
                 "output_limit": Verdict.OUTPUT_LIMIT, "memory_limit": Verdict.MEMORY_LIMIT,
                 "trace_limit": Verdict.OUTPUT_LIMIT}


def case_seed(seed: int, case_name: str) -> int:
    """A per-case seed: changing the exercise seed (a secret one on the server) changes every case."""
    return random.Random(f"{seed}:{case_name}").getrandbits(63)


class PlannedCase(NamedTuple):
    """A case to run, by name: its inputs are made only when ``make`` is called, so that one
    case's inputs (and expected values) exist at a time."""

    name: str
    make: Callable[[], CaseSpec]

    @classmethod
    def made(cls, spec: CaseSpec) -> PlannedCase:
        """A case whose inputs are made already."""
        return cls(spec["name"], lambda: spec)


def lazy_cases(exercise: Exercise, seed: int | None = None,
               only_samples: bool = False) -> list[PlannedCase]:
    """The cases to run, each with every rank's inputs made from ``seed`` (the exercise's by
    default) when it is about to run (:func:`case_spec`)."""
    seed = exercise.seed if seed is None else seed
    return [PlannedCase(case.name, functools.partial(case_spec, exercise, case, seed))
            for case in exercise.cases if case.sample or not only_samples]


def plan_cases(exercise: Exercise, seed: int | None = None,
               only_samples: bool = False) -> list[CaseSpec]:
    """The cases to run, every one's inputs made now (see :func:`lazy_cases`)."""
    return [planned.make() for planned in lazy_cases(exercise, seed, only_samples)]


def case_spec(exercise: Exercise, case: Case, seed: int) -> CaseSpec:
    """One case with every rank's inputs made from ``seed``.

    A sample case takes the grader's optional ``example_inputs(case)`` instead: values
    a learner can check by hand, those of the statement's example.
    """
    example = getattr(exercise.grader, "example_inputs", None)
    rng = random.Random(case_seed(seed, case.name))
    if case.sample and example is not None:
        inputs = example(case.params, case.world_size)
    else:
        inputs = exercise.grader.make_inputs(case.params, case.world_size, rng)
    if exercise.arguments:  # each rank gets them with its input, when its graded call starts
        inputs = [{**i, "args": exercise.call_args(case.params)} for i in inputs]
    spec = CaseSpec(name=case.name, world_size=case.world_size, sample=case.sample,
                    params=dict(case.params), inputs=inputs)
    if exercise.payload_bytes == "case-dtype":
        spec["charge_dtype"] = str(case.params["dtype"])
    return spec


def check_compiles(code: str, filename: str) -> tuple[str, str, int | None, int | None] | None:
    """None if ``code`` compiles, else (English message, Chinese message, line, column)."""
    try:
        compile(code, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line, col = exc.lineno, exc.offset
        text = (exc.text or "").rstrip("\n")
        pointer = f"\n    {text}\n    {' ' * max((col or 1) - 1, 0)}^" if text else ""
        return (f"{filename}, line {line}, column {col}: {exc.msg}{pointer}",
                f"{filename} 第 {line} 行第 {col} 列：{exc.msg}{pointer}", line, col)
    except ValueError as exc:  # e.g. null bytes
        return (f"{filename}: {exc}", f"{filename}：{exc}", None, None)
    return None


def _fmt(x: Any) -> str:
    if isinstance(x, int) and x not in values.INT_RANGE:  # its digits may be refused, or many
        return f"{'-' if x < 0 else ''}~1e{int(math.log10(abs(x)))}"
    return f"{x:.10g}" if isinstance(x, float) else repr(x) if isinstance(x, str) else str(x)


#: what a grader's hook says (words, or a chunk summary)
Said = TypeVar("Said")


def _diagnosis(hook: Callable[..., Said | None], *args: Any, **kwargs: Any) -> Said | None:
    """What a grader's ``hook`` says about a wrong answer, or nothing should it fail: a
    diagnosis is dropped, never the verdict (the failure is logged for the exercise's author)."""
    try:
        return hook(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a grader's bug on a learner's result must not cost a verdict
        log.exception("%s: dropped a diagnosis that failed", getattr(hook, "__qualname__", hook))
        return None


def _compare(exercise: Exercise, spec: CaseSpec, rank: int, got: Any,
             want: Any) -> WrongAnswer | None:
    """None if ``got`` matches ``want`` (values: tensors, numbers, lists, tuples), else a
    learner-facing explanation of the first difference."""
    what, what_zh = _result_name(exercise)
    for path, g, w in values.walk_pairs(got, want):
        where = f"case {spec['name']}, rank {rank}" + (f", {what}{path}" if path else "")
        where_zh = f"用例 {spec['name']}，rank {rank}" + (f"，{what_zh}{path}" if path else "")
        if values.is_tensor(w):
            wrong = _compare_tensor(exercise, spec, rank, g, w, where, where_zh, path, what)
        else:
            wrong = _compare_other(g, w, where, where_zh, what)
            if wrong and not path and _asks_about_numbers(exercise, w):
                why = _diagnosis(exercise.grader.diagnose, spec["params"], spec["world_size"],
                                 spec["inputs"], rank, 0, g, path="")  # a returned number
                wrong = wrong._replace(hint=why)
        if wrong:
            return wrong
    return None


def _result_name(exercise: Exercise) -> tuple[str, str]:
    """What holds the result, (English, Chinese): the parameter the function leaves it in
    (``grads`` of ``sync_grads(grads, bucket_bytes)``), or the return value."""
    if exercise.output == "inplace":
        name = exercise.parameters[0]
        if name.isidentifier():
            return name, name
        return "the argument", "参数"
    return "the return value", "返回值"


def _takes_path(exercise: Exercise) -> bool:
    """Whether the grader's ``diagnose`` takes ``path``: written for results other than one
    tensor (only such a grader is asked about a nested element or a returned number)."""
    return exercise.grader.takes_path


def _asks_about_numbers(exercise: Exercise, want: Any) -> bool:
    """Whether a wrong returned number goes to the grader's ``diagnose`` (index 0)."""
    return isinstance(want, (int, float)) and not isinstance(want, bool) and _takes_path(exercise)


def _compare_other(got: Any, want: Any, where: str, where_zh: str,
                   what: str) -> WrongAnswer | None:
    """A difference in structure or in a number (relative tolerance 1e-6 for floats)."""
    if isinstance(want, dict) and want.get("any"):  # the grader does not look here
        return None
    if not values.same_structure(got, want) or values.is_tensor(got) != values.is_tensor(want):
        (is_, is_zh), (wants, wants_zh) = values.describe(got), values.describe(want)
        return WrongAnswer((f"{where}: {what} is {is_}, expected {wants}",
                            f"{where_zh}：结果是{is_zh}，应为{wants_zh}"))
    number = (int, float)
    if isinstance(want, float) and isinstance(got, number) and not isinstance(got, bool):
        if values.close(got, want, 1e-6, 1e-12):
            return None
    elif got == want and type(got) is type(want):
        return None
    return WrongAnswer((f"{where}: expected {_fmt(want)}, got {_fmt(got)}",
                        f"{where_zh}：应为 {_fmt(want)}，实际为 {_fmt(got)}"))


def _compare_tensor(exercise: Exercise, spec: CaseSpec, rank: int, got: Any, want: TensorData,
                    where: str, where_zh: str, path: str,
                    what: str) -> WrongAnswer | None:
    if not values.is_tensor(got):
        return WrongAnswer((f"{where}: {what}{path} is not a tensor", f"{where_zh}：结果不是张量"))
    if list(got["shape"]) != list(want["shape"]):
        en, zh = (f"{where}: shape {tuple(got['shape'])}, expected {tuple(want['shape'])}",
                  f"{where_zh}：形状为 {tuple(got['shape'])}，应为 {tuple(want['shape'])}")
        hook = getattr(exercise.grader, "diagnose_shape", None)  # what the shape means, in words
        why = _diagnosis(hook, spec["params"], spec["world_size"], rank, list(got["shape"]),
                         path) if hook else None
        return WrongAnswer((f"{en}: {why[0]}", f"{zh}：{why[1]}") if why else (en, zh))
    if got["dtype"] != want["dtype"]:
        return WrongAnswer((f"{where}: dtype {got['dtype']}, expected {want['dtype']}",
                            f"{where_zh}：dtype 为 {got['dtype']}，应为 {want['dtype']}"))
    dtype = want["dtype"]
    if len(got["data"]) == len(want["data"]) and all(map(operator.eq, got["data"], want["data"])):
        return None  # every element equal: no tolerance to apply
    for index, (g, w) in enumerate(zip(got["data"], want["data"], strict=True)):
        if values.element_matches(g, w, dtype):
            continue
        wrong = sum(1 for a, b in zip(got["data"], want["data"], strict=True)
                    if not values.element_matches(a, b, dtype))
        en = (f"{where}: first wrong element at index {index}: expected {_fmt(w)}, got {_fmt(g)} "
              f"({wrong} of {plural(len(want['data']), 'element')} wrong)")
        zh = (f"{where_zh}：第一个错误元素在下标 {index}：应为 {_fmt(w)}，实际为 {_fmt(g)}"
              f"（共 {len(want['data'])} 个元素中 {wrong} 个错误）")
        return WrongAnswer((en, zh), _diagnose(exercise, spec, rank, index, g, path))
    return None


def _diagnose(exercise: Exercise, spec: CaseSpec, rank: int, index: int, got: Any,
              path: str) -> tuple[str, str] | None:
    """The grader's ``diagnose`` of a wrong element; inside a nested result only a grader whose
    ``diagnose`` takes ``path`` (e.g. "[0][2]") is asked."""
    diagnose = exercise.grader.diagnose
    if not path:
        return _diagnosis(diagnose, spec["params"], spec["world_size"], spec["inputs"], rank,
                          index, got)
    if not _takes_path(exercise):
        return None
    return _diagnosis(diagnose, spec["params"], spec["world_size"], spec["inputs"], rank, index,
                      got, path=path)


def _rank_failure(exercise: Exercise, raw: RawCase) -> tuple[Verdict, str, str, list[str]] | None:
    """The first rank's error as a verdict, message pair and traceback, if any rank failed."""
    for report in raw["ranks"]:
        err = report["error"]
        if err is None:
            continue
        r = report["rank"]
        at = f"rank {r}, line {err['line']}" if err["line"] else f"rank {r}"
        at_zh = f"rank {r} 第 {err['line']} 行" if err["line"] else f"rank {r}"
        if err["kind"] == "forbidden":
            op = DISPLAY.get(err.get("op", ""), err.get("op", "?"))
            return (Verdict.FORBIDDEN_PRIMITIVE, *_forbidden(exercise, at, at_zh, op), [])
        if err["kind"] == "judge":  # a limit of the judge stopped the rank: never the learner's
            return (Verdict.JUDGE_ERROR, f"rank {r}: {err['message']}. This is a limit of the "
                    "judge, not a fault of your code",
                    f"rank {r}：{err.get('message_zh') or err['message']}。这是评测机的限制，"
                    "不是你的代码的问题", [])
        if err["kind"] == "memory":
            return (Verdict.MEMORY_LIMIT, f"{at} ran out of memory: {err['message']}",
                    f"{at_zh} 内存不足：{err['message']}", [err["traceback"]])
        # the judge's words have a Chinese twin; torch.distributed's have theirs in a table
        said_zh = err.get("message_zh") or in_chinese(err["message"]) or err["message"]
        if err["kind"] == "signal":
            return (Verdict.RUNTIME_ERROR, f"rank {r} was killed: {err['message']}",
                    f"rank {r} {err.get('message_zh') or '被终止：' + err['message']}", [])
        hint, hint_zh = CONFINED_HINT if err["type"] == "PermissionError" else ("", "")
        call = _failed_call(raw, r, err["line"])
        if call is not None:
            at, at_zh = f"rank {r}'s {call} at line {err['line']}", f"rank {r} 第 {err['line']} 行的 {call}"
        return (Verdict.RUNTIME_ERROR, f"{at} raised {err['type']}: {err['message']}{hint}",
                f"{at_zh} 抛出 {err['type']}：{said_zh}{hint_zh}", [err["traceback"]])
    return None


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
    return _call_name(last["api"], last["kind"])


def _refused(exercise: Exercise, raw: RawCase) -> tuple[str, str] | None:
    """The first call the switch refused (a fact of the switch, whatever the rank did next)."""
    refused = raw["trace"]["refused"]
    if not refused:
        return None
    first = min(refused, key=lambda r: (r["rank"], r["t"]))  # the same one whatever the timing
    r, line = first["rank"], first["line"]
    at = f"rank {r}, line {line}" if line else f"rank {r}"
    at_zh = f"rank {r} 第 {line} 行" if line else f"rank {r}"
    en, zh = _forbidden(exercise, at, at_zh, _call_name(first["api"], first["kind"]))
    then = instead(first["kind"], exercise.allowed)  # the idiom's replacement, where known
    return (f"{en}; {then[0]}", f"{zh}；{then[1]}") if then else (en, zh)


def _call_name(api: str, kind: str) -> str:
    """The torch.distributed function or process group method the learner wrote, when it
    names a call of the switch's ``kind``; else the switch's own name for the kind (never free
    text a rank reported)."""
    if CANONICAL.get(api) == kind:
        return api
    if PROCESS_GROUP_METHODS.get(api.removeprefix("ProcessGroup.")) == kind and \
            api.startswith("ProcessGroup."):
        return f"{api} ({kind})"
    return DISPLAY.get(kind, "?")


def _forbidden(exercise: Exercise, at: str, at_zh: str, call: str) -> tuple[str, str]:
    """A refused call's message, (English, Chinese), with what the exercise allows."""
    return (f"{at}: calls {call}, which this exercise does not allow (allowed: "
            f"{', '.join(exercise.allowed)})",
            f"{at_zh}：调用了本题禁止的 {call}（只允许：{'、'.join(exercise.allowed)}）")


def grade_case(facts: CaseFacts) -> CaseResult:
    """One case of the verdict JSON from the facts of a runtime's report: its verdict and what
    decided it; the case's replay, when grading makes it, is kept in ``facts.modelled``. What
    the case shows beside it (its timeline; a too-slow case's critical path) is added
    afterwards from the same facts (``cjudge.view.present``)."""
    exercise, spec, raw = facts.exercise, facts.spec, facts.raw
    world = spec["world_size"]
    details: list[str] = []
    deadlock: DeadlockFacts | None = None
    memory: MemoryUse | None = None
    failure = _rank_failure(exercise, raw)
    stop = raw["stop"]
    refused = _refused(exercise, raw)
    if refused is not None:
        verdict, (en, zh) = Verdict.FORBIDDEN_PRIMITIVE, refused
        details = failure[3] if failure is not None else []
    elif stop in ("output_limit", "memory_limit", "trace_limit") or \
            (stop is not None and (failure is None or raw["trace"].get("limit") == "time")):
        verdict = STOP_VERDICTS[stop]
        en, zh = _stop_message(raw, verdict, facts.time_limit_s)
        if verdict is Verdict.DEADLOCK:  # as data too: the web app draws it
            deadlock = deadlock_facts(raw["trace"], raw["ranks"])
    elif failure is not None:  # a rank's error explains why its peers hung or spun
        verdict, en, zh, details = failure
    else:
        (verdict, en, zh), memory = _grade_finished(facts)
    result = CaseResult(name=spec["name"], world_size=world, bytes_sent=facts.sent,
                        bytes_bound=max(facts.bounds), messages_sent=facts.messages,
                        wall_ms=round(raw["wall_ms"], 1), trace=graded_calls(raw["trace"]),
                        verdict=verdict, message=en, message_zh=zh, details=details)
    if facts.per_rank:  # e.g. a root's bound and the leaves'
        result["bytes_bounds"] = facts.bounds
    if deadlock is not None:
        result["deadlock"] = deadlock
    if memory is not None:
        result["memory"] = memory
    if facts.modelled is not None:
        result["model"] = facts.modelled.model
    if spec["sample"]:  # learners see the sample case in full
        result["sample"] = Sample(inputs=spec["inputs"],
                                  outputs=[r["output"] for r in raw["ranks"]],
                                  expected=facts.expected)
    return result


def _grade_finished(facts: CaseFacts) -> tuple[tuple[Verdict, str, str], MemoryUse | None]:
    """The verdict of a run in which every rank returned, with its memory count: its results,
    then (while correct) the judge's functions' inputs, the memory peak, the grader's traffic
    rule, the modelled time (the case's one replay, kept in ``facts.modelled``) and the steps,
    in that order; the first that fails decides."""
    exercise, spec, raw = facts.exercise, facts.spec, facts.raw
    memory: MemoryUse | None = None
    verdict, en, zh = _judge_outputs(facts)
    if "race" in raw["trace"]:  # symmetric memory read or written with no barrier between
        verdict, (en, zh) = Verdict.WRONG_ANSWER, symm.explain(raw["trace"]["race"])
        facts.wrong = None  # the message is the race's, not the result's parts
    if verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET):
        verdict, en, zh = _check_computes(exercise, spec, raw) or (verdict, en, zh)
    if verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET):
        memory, over = _check_memory(exercise, spec, raw)
        if over is not None and (verdict is Verdict.ACCEPTED or over[0] is Verdict.RUNTIME_ERROR):
            verdict, en, zh = over
    if verdict is Verdict.ACCEPTED:
        verdict, en, zh = _check_traffic(exercise, spec, raw) or (verdict, en, zh)
    # a finished, correct run; without input tensors (S = 0) there is nothing to scale
    if verdict in (Verdict.ACCEPTED, Verdict.OVER_BUDGET) and values.input_bytes(spec):
        modelled = facts.modelled = model_case(
            raw["trace"], values.input_bytes(spec), exercise.model, case_name=spec["name"],
            params=spec["params"], sent=facts.sent)
        if not modelled.complete:
            log.error("%s, case %s: the replay is incomplete", exercise.id, spec["name"])
            verdict, (en, zh) = Verdict.JUDGE_ERROR, INCOMPLETE_MODEL
        elif verdict is Verdict.ACCEPTED and modelled.too_slow:
            verdict, (en, zh) = Verdict.TOO_SLOW, slow.explain(
                modelled, facts.schedule, raw["trace"], exercise.allowed)
    if verdict is Verdict.ACCEPTED:  # too_slow names the critical path first
        verdict, en, zh = _check_messages(exercise, spec, facts.messages,
                                          steps_per_rank(raw["trace"])) or (verdict, en, zh)
    return (verdict, en, zh), memory


def _stop_message(raw: RawCase, verdict: Verdict, limit: float) -> tuple[str, str]:
    if verdict is Verdict.DEADLOCK:
        return deadlock_message(deadlock_facts(raw["trace"], raw["ranks"]))
    if verdict is Verdict.TIME_LIMIT:
        return _late_message(raw) or stuck_message(raw["trace"], raw["ranks"], limit)
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


def _first_wrong(exercise: Exercise, spec: CaseSpec, raw: RawCase,
                 wants: list[Any]) -> RankReport | WrongAnswer | None:
    """In rank order, the first rank that did not return (its report) or whose result differs
    from ``wants`` (the difference, with the summary of wrong chunks); None if all match."""
    for report, want in zip(raw["ranks"], wants, strict=True):
        if report["state"] != "returned":
            return report
        wrong = _compare(exercise, spec, report["rank"], report["output"], want)
        if wrong:
            root = root_zero(exercise.builtin, spec["params"], raw["trace"])  # assumed rank 0
            if root is not None:
                wrong = wrong._replace(where=(f"{wrong.where[0]}. {root[0][0].upper()}"
                                              f"{root[0][1:]}", f"{wrong.where[1]}。{root[1]}"))
            return wrong._replace(summary=_diagnosis(
                summary, spec["params"], spec["world_size"], [r["output"] for r in raw["ranks"]],
                wants, exercise.grader))
    return None


def _judge_outputs(facts: CaseFacts) -> tuple[Verdict, str, str]:
    exercise, spec, raw = facts.exercise, facts.spec, facts.raw
    sent, bounds = facts.sent, facts.bounds
    found = _first_wrong(exercise, spec, raw, facts.expected)
    if isinstance(found, WrongAnswer):
        facts.wrong = found
        return Verdict.WRONG_ANSWER, *found.message()
    if found is not None:
        r = found["rank"]
        return (Verdict.RUNTIME_ERROR, f"rank {r} never finished its call (state: "
                f"{found['state']})", f"rank {r} 没有完成调用（状态：{found['state']}）")
    over = [r for r in range(len(sent)) if sent[r] > bounds[r]]
    if over:
        worst = max(over, key=lambda r: sent[r] - bounds[r])
        needs = getattr(exercise.grader, "needs", None)  # in words
        calls = [c for c in graded_calls(raw["trace"]) if c["rank"] == worst]
        why = _diagnosis(needs, spec["params"], spec["world_size"], spec["inputs"], worst,
                         calls) if needs else None
        return (Verdict.OVER_BUDGET, *over_budget(raw["trace"], worst, sent[worst],
                                                  bounds[worst], values.element_size(spec), why))
    worst = max(range(len(sent)), key=sent.__getitem__)
    if len(set(bounds)) > 1:  # per-rank bounds: say the rank's own
        return (Verdict.ACCEPTED, f"correct; every rank within its bound (rank {worst}: "
                f"{sent[worst]} of {bounds[worst]} bytes)",
                f"正确；每个 rank 都在其上限内（rank {worst}：{sent[worst]} / {bounds[worst]} 字节）")
    return (Verdict.ACCEPTED, f"correct; at most {sent[worst]} of {bounds[worst]} bytes per rank",
            f"正确；每个 rank 最多发送 {sent[worst]} / {bounds[worst]} 字节")


def _check_messages(exercise: Exercise, spec: CaseSpec, msgs: list[int],
                    steps: list[int]) -> tuple[Verdict, str, str] | None:
    """Over budget when a rank took more steps than the exercise's algorithm needs
    (``[messages]``, counted by ``model.steps``: segments in flight are one step, every empty
    message is one, since it carries data by being there)."""
    if exercise.messages is None:
        return None
    limit = exercise.messages(spec["world_size"], spec["params"])
    worst = max(range(len(steps)), key=steps.__getitem__)
    if steps[worst] <= limit:
        return None
    what, what_zh = exercise.messages.algorithm
    return (Verdict.OVER_BUDGET,
            f"correct, but rank {worst} sent {plural(msgs[worst], 'message')}; {what} needs {limit} "
            f"steps and this rank took {steps[worst]:,} (a message sent to a peer while the "
            "previous one to it is in flight is a segment of the same step; one sent after waiting "
            "for it, and every empty message, is a step of its own)",
            f"结果正确，但 rank {worst} 发送了 {msgs[worst]:,} 条消息；{what_zh}只需要 {limit} 条（步），"
            f"这个 rank 用了 {steps[worst]:,} 步（上一条发往同一对端的消息仍在传输时发出的消息是同一步"
            "的分段；等它完成后才发出的消息，以及每条空消息，各算一步）")


def _check_traffic(exercise: Exercise, spec: CaseSpec,
                   raw: RawCase) -> tuple[Verdict, str, str] | None:
    """The grader's optional ``check_traffic(case, calls)`` on a correct answer: a
    constraint on the calls themselves (bytes per link class, how many calls), over budget when
    it says why (``(en, zh)``), or the verdict it names (``(en, zh, "wrong_answer")``: too little
    traffic for the result to have been computed as the exercise says)."""
    check = getattr(exercise.grader, "check_traffic", None)
    if check is None:
        return None
    why = check(spec["params"], spec["world_size"], graded_calls(raw["trace"]))
    if not why:
        return None
    if len(why) > 2:
        return Verdict(why[2]), why[0], why[1]
    return Verdict.OVER_BUDGET, f"correct, but {why[0]}", f"结果正确，但 {why[1]}"


def _check_computes(exercise: Exercise, spec: CaseSpec,
                    raw: RawCase) -> tuple[Verdict, str, str] | None:
    """The grader's optional ``check_computes(case, inputs, computes)`` on a correct
    answer: whether the judge's functions were given what the algorithm gives them (the trace's
    ``computes``, each call's input known by its digest, in order; with the whole ``trace``
    when it takes it, what each send carried); wrong_answer when it says why: the result was
    not computed by the judge's functions from the data that travelled."""
    check = getattr(exercise.grader, "check_computes", None)
    if check is None:
        return None
    trace = raw["trace"]
    more = {"trace": trace} if exercise.grader.computes_take_trace else {}
    why = check(spec["params"], spec["world_size"], spec["inputs"], trace.get("computes", []),
                **more)
    return (Verdict.WRONG_ANSWER, why[0], why[1]) if why else None


def _check_memory(exercise: Exercise, spec: CaseSpec, raw: RawCase
                  ) -> tuple[MemoryUse | None, tuple[Verdict, str, str] | None]:
    """The grader's optional ``memory(case, inputs, trace)`` on a correct answer: the
    peak of what the judge counts alive from its functions' calls (``peak``, ``bound``,
    ``what``, ``what_zh``; ``message``, ``message_zh`` when over), kept as the case's
    ``memory``; memory_limit when the peak is over the bound."""
    count = getattr(exercise.grader, "memory", None)
    if count is None:
        return None, None
    try:
        memory = count(spec["params"], spec["world_size"], spec["inputs"], raw["trace"])
    except FreedDead as exc:
        return None, (Verdict.RUNTIME_ERROR, exc.en, exc.zh)
    kept = MemoryUse(peak=memory["peak"], bound=memory["bound"], what=memory["what"],
                     what_zh=memory["what_zh"])
    if memory["peak"] <= memory["bound"]:
        return kept, None
    return kept, (Verdict.MEMORY_LIMIT, f"correct, but {memory['message']}",
                  f"结果正确，但{memory['message_zh']}")


def summarize(exercise: Exercise, cases: list[CaseResult], runtime: str, seed: int,
              stdout: str = "",
              compile_error: tuple[str, str, int | None, int | None] | None = None
              ) -> VerdictJSON:
    """The verdict JSON: the first failing case's verdict, or compile_error, or accepted."""
    if compile_error is not None:
        verdict, message, message_zh = Verdict.COMPILE_ERROR, compile_error[0], compile_error[1]
    else:
        failing = next((c for c in cases if c["verdict"] != Verdict.ACCEPTED), None)
        verdict = Verdict(failing["verdict"]) if failing else Verdict.ACCEPTED
        message = failing["message"] if failing else f"all {plural(len(cases), 'case')} passed"
        message_zh = failing["message_zh"] if failing else f"全部 {len(cases)} 个用例通过"
    result = VerdictJSON(
        exercise=exercise.id, verdict=verdict, message=message, message_zh=message_zh,
        runtime=runtime, cases=cases, stdout=stdout, judge_version=__version__, seed=seed,
        exercise_hash=exercise.content_hash)
    if compile_error is not None:
        result["line"], result["column"] = compile_error[2], compile_error[3]
    return result
