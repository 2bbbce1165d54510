"""Verdict codes, their order of severity, and learner-facing titles in English and Chinese."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """The verdict codes shared by the CLI, the server and the browser (see DESIGN.md)."""

    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT = "time_limit"
    DEADLOCK = "deadlock"
    FORBIDDEN_PRIMITIVE = "forbidden_primitive"
    OVER_BUDGET = "over_budget"
    TOO_SLOW = "too_slow"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    JUDGE_ERROR = "judge_error"


TITLES: dict[Verdict, tuple[str, str]] = {
    Verdict.ACCEPTED: ("Accepted", "通过"),
    Verdict.WRONG_ANSWER: ("Wrong answer", "答案错误"),
    Verdict.COMPILE_ERROR: ("Compile error", "编译错误"),
    Verdict.RUNTIME_ERROR: ("Runtime error", "运行错误"),
    Verdict.TIME_LIMIT: ("Time limit exceeded", "超时"),
    Verdict.DEADLOCK: ("Deadlock", "死锁"),
    Verdict.FORBIDDEN_PRIMITIVE: ("Forbidden primitive", "使用了禁止的原语"),
    Verdict.OVER_BUDGET: ("Over the byte budget", "通信量超标"),
    Verdict.TOO_SLOW: ("Too slow", "太慢"),
    Verdict.MEMORY_LIMIT: ("Memory limit exceeded", "超出内存限制"),
    Verdict.OUTPUT_LIMIT: ("Output limit exceeded", "输出超限"),
    Verdict.JUDGE_ERROR: ("Judge error", "评测机错误"),
}


def title(verdict: str, lang: str = "en") -> str:
    """The learner-facing title of a verdict code in ``lang`` ("en" or "zh")."""
    en, zh = TITLES[Verdict(verdict)]
    return zh if lang == "zh" else en


def label(verdict: str, lang: str = "en") -> str:
    """The title with its code when the code says something more: ``Over the byte budget
    (over_budget)``, ``超时 (time_limit)``, but ``Deadlock``, not ``Deadlock (deadlock)``."""
    name = title(verdict, lang)
    return name if name.lower() == verdict.replace("_", " ") else f"{name} ({verdict})"
