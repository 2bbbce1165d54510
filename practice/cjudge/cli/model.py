"""``judge.py model ID [FILE]``: modelled time of the exercise's reference algorithms (and a file)
over a range of sizes on a topology, as a table and a chart.

The references are generated traces (:mod:`cjudge.model.reference`); a file's own trace comes
from one function, :func:`learner_trace`, which runs it on the simulated runtime.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TypedDict

from rich.console import Console

from ..contract.primitives import CANONICAL
from ..contract.units import SizeError, format_size, parse_sizes
from ..contract.values import input_bytes
from ..exercise.exercises import Exercise
from ..model.case import crossing, sweep
from ..model.reference import REFERENCES
from ..model.schema import SizeRow
from ..model.topology import THIS_MACHINE, ModelError, Topology, get_topology
from ..switch.trace import SwitchTrace
from . import workspace
from .exits import USAGE, error
from .helptext import ID_HELP, add_command
from .model_table import RATIO_NOTE, fit_width, show

#: the RawCase key that carries the switch's trace
SWITCH_KEY: Final = "trace"


class Series(TypedDict):
    """One algorithm's modelled rows, a reference's or the learner's file's."""

    label: str
    kind: str  # "reference" or "learner"
    run_size: int  # the run's S, from which its messages are scaled
    rows: list[SizeRow]  # one per size


class Crossing(TypedDict):
    """The size at which the first two references take equal time."""

    a: str
    b: str
    size: float


class SweepDoc(TypedDict):
    """``judge.py model``'s document (its ``--json``): each algorithm modelled at each size."""

    exercise: str
    collective: str | None
    ranks: int
    topology: Mapping[str, object]  # ``Topology.as_json``
    contention: bool
    sizes: list[int]
    series: list[Series]
    crossings: list[Crossing]
    notes: list[str]


def fitted() -> Path:
    """The fitted machine ``judge.py bench`` saves, in the workspace."""
    return workspace.root() / f"{THIS_MACHINE}.json"


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """The ``model`` subcommand's arguments."""
    p = add_command(sub, "model", parents)
    p.add_argument("id", help=ID_HELP)
    p.add_argument("file", nargs="?", type=Path, help="a file to model beside the references")
    p.add_argument("--topology", default="h100x8",
                   help=f"h100x8, h100x8x2, or {THIS_MACHINE} once `judge.py bench` fitted it")
    p.add_argument("--sizes", default="1K..1G",
                   help="sizes S: a range of powers of two (1K..1G) or a list (4KiB,1MB,1GB); "
                        "K/M/G and KiB are binary, KB/MB/GB decimal")
    p.add_argument("--ranks", type=int, default=8, help="ranks n (default 8)")
    p.add_argument("--no-contention", action="store_true",
                   help="never wait for a busy port (the textbook numbers)")
    p.add_argument("--json", action="store_true", help="print the sweep as JSON")
    p.add_argument("--chart", type=Path, metavar="FILE", help="chart path, .svg or .png "
                   "(default: bench-results/model-ID-TOPOLOGY-Nranks.svg)")
    p.add_argument("--no-chart", action="store_true", help="do not draw the chart")


def learner_trace(exercise: Exercise, path: Path, world_size: int
                  ) -> tuple[SwitchTrace, int, dict[str, int | str]] | None:
    """The switch's trace of ``path`` run on the simulated runtime, that case's S and params.

    The case is the exercise's case with ``world_size`` ranks (else its largest). None when the
    runtime's answer carries no switch trace.
    """
    from ..grading.grade import plan_cases
    from ..sim.runtime import run_case

    case = max(plan_cases(exercise), key=lambda c: (c["world_size"] == world_size, c["world_size"]))
    raw = run_case(exercise.job_spec(path.read_text(encoding="utf-8"), path.name), case)
    trace = raw.get(SWITCH_KEY)
    return (trace, input_bytes(case), case["params"]) if trace else None


def reference_traces(exercise: Exercise, n: int) -> dict[str, tuple[SwitchTrace, int]]:
    """The exercise's reference algorithms at ``n`` ranks, each with its run's S."""
    run_size = 1024 * n
    traces = {}
    for name, make in REFERENCES.get(CANONICAL.get(exercise.builtin, ""), {}).items():
        try:
            traces[name] = (make(n, run_size), run_size)
        except ValueError:  # e.g. recursive doubling on 6 ranks
            continue
    return traces


def build(exercise: Exercise, file: Path | None, topo: Topology, sizes: list[int], n: int,
          contention: bool) -> SweepDoc:
    """The sweep as a document: series of rows, crossings of the first two references."""
    kind = CANONICAL.get(exercise.builtin)
    traces = reference_traces(exercise, n)
    notes = []
    if file is not None:
        mine = learner_trace(exercise, file, n)
        if mine is None:
            notes.append(f"{file}: this runtime records no switch trace yet, so only the "
                         "references are modelled.")
        else:
            traces = {f"{file.name} (yours)": mine[:2], **traces}
            n = mine[0]["world_size"]
            if exercise.model.ranks_per_node is not None:  # placed as the case places them
                topo = topo.placed(mine[2][exercise.model.ranks_per_node], n)
    series: list[Series] = [{"label": label, "kind": "learner" if label.endswith("(yours)") else "reference",
               "run_size": run, "rows": sweep(trace, topo, sizes, run, kind, contention).rows}
              for label, (trace, run) in traces.items()]
    refs = [(label, t) for label, t in traces.items() if not label.endswith("(yours)")]
    crossings: list[Crossing] = []
    if len(refs) >= 2 and sizes:
        (la, a), (lb, b) = refs[0], refs[1]
        where = crossing(a, b, topo, sizes[0], sizes[-1], contention)
        if where is not None:
            crossings.append({"a": la, "b": lb, "size": where})
    return {"exercise": exercise.id, "collective": kind, "ranks": n, "topology": topo.as_json(),
            "contention": contention, "sizes": sizes, "series": series, "crossings": crossings,
            "notes": notes}


def render(doc: SweepDoc, console: Console) -> None:
    """The table (:mod:`.model_table`), then what its numbers mean, crossings and notes, all
    at the width the output must fit."""
    topo = doc["topology"]
    heading = (f"{doc['exercise']}: modelled on {topo['title']} ({topo['name']}), {doc['ranks']} "
               f"ranks" + ("" if doc["contention"] else ", contention-free"))
    tall = show(doc, heading, console)
    width = fit_width(console)
    lines = [RATIO_NOTE[tall].format(first=doc["series"][0]["label"]) + " Times are the α-β "
             "model's (GB = 1e9 B), every message scaled from the run's S to each size."]
    lines += [f"{c['a']} and {c['b']} cross at {format_size(c['size'])}." for c in doc["crossings"]]
    styled = [(line, "") for line in lines] + [(note, "yellow") for note in doc["notes"]]
    for text, style in styled:
        console.print(textwrap.fill(text, width) if width else text, markup=False,
                      highlight=False, style=style, soft_wrap=True)


def cmd_model(exercise: Exercise, args: argparse.Namespace, console: Console) -> int:
    """Run ``judge.py model``; the exit status (2 for a bad argument)."""
    try:
        topo = get_topology(args.topology, fitted())
        sizes = parse_sizes(args.sizes)
        if args.ranks < 2:
            raise ModelError("--ranks must be 2 or more")
        if args.file is not None and not args.file.is_file():
            raise ModelError(f"no such file: {args.file}")
        doc = build(exercise, args.file, topo, sizes, args.ranks, not args.no_contention)
    except (ModelError, SizeError) as exc:
        error(f"model: {exc}")
        return USAGE
    if not doc["series"]:
        error(f"model: no reference algorithm for {exercise.id}'s {exercise.builtin}")
        return USAGE
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        render(doc, console)
    if not args.no_chart:
        from .model_chart import draw

        path = args.chart or Path("bench-results") / (
            f"model-{exercise.id}-{topo.name}-{doc['ranks']}ranks.svg")
        draw(doc, path)
        sys.stdout.flush()
        print(f"model: wrote {path}", file=sys.stderr)
    return 0
