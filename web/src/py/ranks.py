"""One simulated rank in the browser, and the case put back together from its ranks.

:func:`rank_main` runs in whichever interpreter holds the rank (the judge's own under JSPI, a
worker's in the fallback) and answers JSON; :func:`raw_case` turns the hub's answer for all
ranks into the :class:`~cjudge.protocol.RawCase` the kernel grades, with the rules of
``cjudge.runtime_sim`` (an output overflow stops the case; ranks stuck after a failure are the
failure's consequence, not a deadlock).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from cjudge.learner import compile_learner, learner_error
from cjudge.protocol import CaseSpec, JobSpec, RankReport, RawCase, TraceEvent
from cjudge.sim.capture import Capture, Router
from cjudge.sim.rank import install_modules, run_rank

from .transport import Aborted, JsTransport

sys.stdout = sys.stderr = Router(sys.__stdout__)


def rank_specs(spec: CaseSpec) -> str:
    """JSON of one spec per rank holding that rank's input only: a rank parses no one else's."""
    world = spec["world_size"]
    return json.dumps([json.dumps({**spec, "inputs": [spec["inputs"][r] if r == rank else None
                                                      for r in range(world)]})
                       for rank in range(world)])


def rank_main(job_json: str, spec_json: str, rank: int, coordinator: Any) -> str:
    """Run ``rank`` of the case to its end (or until the case is abandoned); JSON of
    ``{report, events, output, exceeded}``, ``report`` null when the rank was left blocked."""
    job: JobSpec = json.loads(job_json)
    spec: CaseSpec = json.loads(spec_json)
    install_modules()  # a fresh simulated torch; ranks sharing an interpreter route by context
    transport = JsTransport(coordinator)
    events: list[TraceEvent] = []
    capture = Capture(spec["world_size"], job["output_limit_bytes"])
    report: RankReport | None
    try:
        report = run_rank(job, spec, rank, transport, compile_learner(job["code"], job["filename"]),
                          events, capture)
        if report["state"] == "killed":
            transport.finish(rank, "killed")
    except Aborted:
        report = None
    except BaseException as exc:  # noqa: BLE001 - a learner's own BaseException subclass
        report = RankReport(rank=rank, state="failed", output=None,
                            error=learner_error(exc, job["filename"]))
        transport.finish(rank, "failed")
    return json.dumps({"report": report, "events": events, "output": capture.merged(),
                       "exceeded": capture.exceeded})


def raw_case(job: JobSpec, spec: CaseSpec, outcome: dict) -> RawCase:
    """The case from the hub's ``{results, states, waiting, stop, wall_ms}`` (``results``: each
    rank's :func:`rank_main` answer, as it gave it)."""
    results = [json.loads(text) for text in outcome["results"]]
    reports: list[RankReport] = []
    for rank, result in enumerate(results):
        waiting = outcome["waiting"][rank]
        reports.append(result["report"] or RankReport(
            rank=rank, state="blocked" if waiting else "running", output=None, error=None,
            waiting=waiting[0] if waiting else None))
    stop = outcome["stop"]
    if any(result["exceeded"] for result in results):
        stop = "output_limit"
    elif stop == "deadlock" and any(r["state"] == "failed" for r in reports):
        stop = None
    limit = job["output_limit_bytes"]
    output = "\n".join(r["output"] for r in results if r["output"])
    if len(output) > limit:
        output = output[:limit] + "\n… (output cut)"
    return RawCase(name=spec["name"], ranks=reports,
                   events=[e for r in results for e in r["events"]],
                   stdout=output, stop=stop, wall_ms=outcome["wall_ms"])
