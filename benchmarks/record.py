"""Run a benchmark and write what it printed, with the date and the machine, into docs/.

    .venv/bin/python benchmarks/record.py benchmarks/kernel_suite.py --repeat 3
    .venv/bin/python benchmarks/record.py node web/scripts/timeline-bench.mjs

A ``.py`` script runs under this interpreter; anything else runs as given. Its output is shown
as it comes and, when it exits 0, written to ``docs/benchmark-results/<script stem>.md`` with the
command, the UTC date, the machine (cores, CPU, memory, load average before and after, Python,
torch) so that the numbers in the docs are the script's, never copied by hand. A failing run
writes nothing and passes its exit status on.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "benchmark-results"


def command_for(argv: list[str]) -> list[str]:
    """The command line to run: Python scripts under this interpreter."""
    return [sys.executable, *argv] if argv[0].endswith(".py") else list(argv)


def result_name(argv: list[str]) -> str:
    """The result page's name: the first script's stem (``node x.mjs`` -> ``x``)."""
    scripts = [a for a in argv if a.endswith((".py", ".mjs", ".sh"))]
    return Path(scripts[0] if scripts else argv[0]).stem


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def memory_gib() -> float:
    """Physical memory in GiB (0 where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        return 0.0


def torch_version() -> str:
    """The installed torch's version, without importing it (that takes seconds)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return "not installed"


def load() -> str:
    """The 1-minute load average, formatted."""
    return f"{os.getloadavg()[0]:.1f}"


def machine(load_before: str, load_after: str) -> str:
    """One line naming the machine the numbers come from."""
    return (
        f"{os.cpu_count()} cores ({cpu_model()}), {memory_gib():.0f} GiB; "
        f"load average {load_before} before, {load_after} after; "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
        f"torch {torch_version()}"
    )


def run(cmd: list[str]) -> tuple[int, str]:
    """Run ``cmd`` from the project root, echoing its stdout; its status and stdout."""
    lines: list[str] = []
    with subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            lines.append(line)
    return proc.returncode, "".join(lines)


def report(argv: list[str], output: str, when: datetime.datetime, machine_line: str) -> str:
    """The Markdown page for one recorded run."""
    shown = " ".join(argv)
    return (
        f"# `{shown}`\n\n"
        f"Written by `python benchmarks/record.py {shown}` on {when:%Y-%m-%d %H:%M} UTC.\n\n"
        f"Machine: {machine_line}.\n\n"
        f"```\n{output.rstrip()}\n```\n"
    )


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the result page")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the benchmark and its arguments")
    opts = parser.parse_args(args)
    if not opts.command:
        parser.error("name a benchmark to run, e.g. benchmarks/kernel_suite.py")
    before = load()
    status, output = run(command_for(opts.command))
    if status != 0:
        print(f"record: {opts.command[0]} exited {status}; nothing written", file=sys.stderr)
        return status
    page = report(opts.command, output, datetime.datetime.now(datetime.UTC),
                  machine(before, load()))
    opts.out.mkdir(parents=True, exist_ok=True)
    target = opts.out / f"{result_name(opts.command)}.md"
    target.write_text(page)
    print(f"record: wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
