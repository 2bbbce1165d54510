"""Showing verdicts: rich tables on a terminal, plain lines when piped."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..contract.units import format_seconds, format_size
from ..contract.verdict_json import CaseResult, Sample, VerdictJSON
from ..contract.verdicts import label, title

STYLE = {"accepted": "green", "wrong_answer": "red", "over_budget": "yellow", "too_slow": "yellow",
         "deadlock": "magenta", "time_limit": "magenta", "forbidden_primitive": "red"}


def _bytes(case: CaseResult) -> str:
    sent = case["bytes_sent"]
    return f"{max(sent) if sent else 0}/{case['bytes_bound']}"


def modelled(case: CaseResult) -> str:
    """A case's modelled times per size, e.g. ``4 KiB 70 µs · 1 MB 73.9 µs`` ("" if none)."""
    model = case.get("model")
    return " · ".join(f"{format_size(r['size'])} {format_seconds(r['time_s'])}"
                      + (f" (bound {format_seconds(bound)})" if (bound := r.get("bound_s")) else "")
                      for r in (model.get("sizes", []) if model else []))


def memory(case: CaseResult, lang: str = "en") -> str:
    """A case's memory bound, e.g. ``memory 2/2 gathered layers`` ("" if it has none)."""
    held = case.get("memory")
    if not held:
        return ""
    what = held["what_zh"] if lang == "zh" else held["what"]
    return f"{'内存' if lang == 'zh' else 'memory'} {held['peak']}/{held['bound']} {what}"


def case_line(case: CaseResult) -> str:
    """One case as a plain line: name, ranks, verdict, max bytes sent over the bound, time,
    modelled times and the memory bound."""
    per_rank = " ".join(str(b) for b in case["bytes_sent"])
    model, held = modelled(case), memory(case)
    return (f"{case['name']:<24} n={case['world_size']:<2} {case['verdict']:<20} "
            f"bytes/rank [{per_rank}] bound {case['bytes_bound']}  {case['wall_ms']:.0f} ms"
            + (f"  modelled {model}" if model else "") + (f"  {held}" if held else ""))


def message(item: CaseResult | VerdictJSON, lang: str) -> str:
    """The learner-facing message of a case or a whole result in ``lang``."""
    return item.get("message_zh", "") if lang == "zh" else item.get("message", "")


def show_case(console: Console, case: CaseResult, lang: str) -> None:
    """Print one case as soon as it is graded (the cases so far, on long suites)."""
    if console.is_terminal:
        style = STYLE.get(case["verdict"], "red")
        console.print(f"  [{style}]{title(case['verdict'], lang):<22}[/] {case['name']:<24} "
                      f"n={case['world_size']:<2} bytes {_bytes(case):>14}  "
                      f"{case['wall_ms']:.0f} ms")
    else:
        console.print(case_line(case), markup=False, highlight=False)


def _values(data: list[object], most: int = 12) -> str:
    """A tensor's elements as ``[1, 2, …]``, at most ``most`` of them."""
    shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in data[:most])
    return f"[{shown}{', …' if len(data) > most else ''}]"


def smallest_lines(case: CaseResult, lang: str) -> list[str]:
    """The smallest case that fails as ``case`` does (``smallest``): its message, then each
    rank's input, result and expected values where they are tensors."""
    small = case.get("smallest")
    if not small:
        return []
    lines = [message(small, lang)]
    sample = small.get("sample") or Sample(inputs=[], outputs=[], expected=[])
    for rank, (x, got, want) in enumerate(zip(sample.get("inputs", []), sample.get("outputs", []),
                                              sample.get("expected", []), strict=False)):
        if not all(isinstance(v, dict) and "data" in v for v in (x, got, want)):
            continue
        mark = "" if got["data"] == want["data"] else "  ✗"
        lines.append(f"  rank {rank}: {'输入' if lang == 'zh' else 'input'} {_values(x['data'])}"
                     f" → {_values(got['data'])}, {'应为' if lang == 'zh' else 'expected'} "
                     f"{_values(want['data'])}{mark}")
    return lines


def show_result(console: Console, result: VerdictJSON, lang: str) -> None:
    """The whole verdict: per-case table, then the first failure's message and details."""
    if console.is_terminal and result["cases"]:
        table = Table(title=f"{result['exercise']} — {result['runtime']}")
        with_model = any(case.get("model") for case in result["cases"])
        with_memory = any(case.get("memory") for case in result["cases"])
        for col in ("case", "ranks", "verdict", "bytes sent per rank", "bound", "ms",
                    *(("modelled time",) if with_model else ()),
                    *(("memory",) if with_memory else ())):
            table.add_column(col, justify="right" if col in ("ranks", "bound", "ms") else "left")
        for case in result["cases"]:
            style = STYLE.get(case["verdict"], "red")
            table.add_row(case["name"], str(case["world_size"]),
                          f"[{style}]{title(case['verdict'], lang)}[/]",
                          " ".join(str(b) for b in case["bytes_sent"]), str(case["bytes_bound"]),
                          f"{case['wall_ms']:.0f}", *((modelled(case),) if with_model else ()),
                          *((memory(case, lang),) if with_memory else ()))
        console.print(table)
    verdict = result["verdict"]
    head = f"{label(verdict, lang)}: {message(result, lang)}"
    if console.is_terminal:
        name = title(verdict, lang)
        code = label(verdict, lang)[len(name):]  # " (code)" when the title does not say it
        console.print(f"[bold {STYLE.get(verdict, 'red')}]{name}[/]{code}: "
                      f"{message(result, lang)}", highlight=False)
    else:
        console.print(f"verdict: {head}", markup=False, highlight=False)
    failing = next((c for c in result["cases"] if c["verdict"] != "accepted"), None)
    if failing is not None:
        for detail in failing.get("details", []):
            console.print(detail.rstrip(), markup=False, highlight=False)
        for line in smallest_lines(failing, lang):
            console.print(line, markup=False, highlight=False)
    if result.get("skipped"):
        names = ", ".join(result["skipped"])
        console.print(("未运行的用例：" if lang == "zh" else "not run after the failure: ") + names,
                      markup=False, highlight=False)
    if result.get("stdout"):
        console.print("--- output ---" if lang != "zh" else "--- 输出 ---", markup=False)
        console.print(result["stdout"], markup=False, highlight=False)
