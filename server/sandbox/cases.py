"""A submission's cases, run in a warm sandbox: the ``run_case`` the worker hands the kernel's
``judge_code``, and the cases it plans for a submission."""

from __future__ import annotations

import logging
import time

from cjudge.contract.protocol import CaseSpec, JobSpec, RankError, RankState, RawCase, Stop
from cjudge.exercise.exercises import Exercise
from cjudge.grading.grade import plan_cases
from cjudge.switch.ending import report_due, unreported

from .pool import WarmPool
from .process import Sandbox, SandboxError, SandboxStop

log = logging.getLogger(__name__)
#: seconds the worker waits for a case's report beyond its time limit (loading the learner's
#: module, forking): ``ending.report_due``'s slack
CASE_SLACK_S = 5.0

#: the runtime a sandbox runs cases with (real processes, torch.distributed over the switch)
RUNTIME = "torch"
#: what a case's runtime may report when the OOM killer fired in it: nothing, or what the kill
#: led to (peers waiting on the killed rank; ranks thrashing in a full memory cgroup past the
#: time limit). The grader explains a killed rank before such a stop, which made the OOM kill a
#: runtime_error. The judge's record limits stay as they are.
OOM_CONSEQUENCES = (None, "deadlock", "time_limit")
NOTES = {
    "killed": "the judge's runner process was killed while your code ran",
    "tampered": "something in your code wrote into the judge's private result channel",
}


class SandboxCases:
    """A ``run_case`` for ``judge_code`` backed by one sandbox from ``pool``.

    The runner takes one job with every case, so the first call takes a sandbox and sends
    them all; each call then returns the next case's raw report. After the sandbox stopped
    early, the case it stopped in is reported with the reason. ``rerun`` runs the job on one
    more case in a sandbox of its own, for the diagnosis.
    """

    def __init__(self, pool: WarmPool, cases: list[CaseSpec]) -> None:
        self.pool = pool
        self.cases = cases
        self.sandbox: Sandbox | None = None
        self.oom_kills = 0
        self.log: str | None = None  # the sandbox's own account of an early stop, for admins
        self.extra: SandboxCases | None = None  # the rerun running now, if one is
        self.aborted = False

    def __call__(self, job: JobSpec, spec: CaseSpec) -> RawCase:
        if self.sandbox is None:
            self.sandbox = self.pool.take()
            self.sandbox.send(job, self.cases)
        raw = self.sandbox.next_raw(report_due(job, time.monotonic(), CASE_SLACK_S))
        if raw is None:
            self.log = self.sandbox.log()
            return self._stopped(job, spec, self.sandbox.stop or "killed")
        if raw.get("name") != spec["name"]:
            self.sandbox.kill()
            self.log = f"answer for case {raw.get('name')!r} instead of {spec['name']!r}"
            return self._stopped(job, spec, "tampered")
        if self._oom_killed(self.sandbox) and raw.get("stop") in OOM_CONSEQUENCES:
            raw["stop"] = "memory_limit"  # the OOM killer fired in this case: the first cause
        return raw  # type: ignore[return-value]  # the runner's report: a RawCase, as JSON

    def rerun(self, job: JobSpec, spec: CaseSpec) -> RawCase:
        """``job`` run on ``spec`` alone (the diagnosis's generic draw) in a fresh sandbox from
        the pool, with the same confinement and limits, killed once answered: never a case of
        the submission. A rerun that did not run to its end reports a stop, which leaves the
        diagnosis unconfirmed (the message as the case's own evidence has it)."""
        extra = self.extra = SandboxCases(self.pool, [spec])
        try:
            if self.aborted:
                return _unfinished(job, spec)
            raw = extra(job, spec)
        except (SandboxError, OSError) as exc:
            log.warning("%s: the diagnosis's rerun failed (%s)", spec["name"], exc)
            return _unfinished(job, spec)
        finally:
            self.extra = None
            extra.close()
        return _unfinished(job, spec) if extra.log is not None else raw

    def abort(self) -> None:
        """Kill the sandbox now, and a rerun's (the lease was lost, or the worker is
        stopping)."""
        self.aborted = True
        for runner in (self, self.extra):
            if runner is not None and runner.sandbox is not None:
                runner.sandbox.kill()

    def close(self) -> None:
        """Kill and clean up the sandbox, if one was taken."""
        if self.sandbox is not None:
            self.sandbox.close()

    def _oom_killed(self, sandbox: Sandbox) -> bool:
        """Whether the OOM killer fired during this case: the sandbox's count of OOM kills grew.
        Read once, when the case's report is in: the kernel counts a kill before it signals the
        victim, so a rank the runner saw die of it is already counted."""
        before, self.oom_kills = self.oom_kills, sandbox.oom_kills()
        return self.oom_kills > before

    def _stopped(self, job: JobSpec, spec: CaseSpec, stop: SandboxStop) -> RawCase:
        """The report of the case the sandbox stopped in (``judge_code`` runs no later case)."""
        state: RankState
        raw_stop: Stop | None
        error: RankError | None
        if stop == "killed" or stop == "tampered":
            state, raw_stop = "killed", None
            error = RankError(kind="signal", type="Killed", message=NOTES[stop], traceback="",
                              line=None)
        else:
            state, raw_stop, error = "running", stop, None
        return unreported(job, spec["name"], [state] * spec["world_size"], raw_stop, 0.0, error)


def _unfinished(job: JobSpec, spec: CaseSpec) -> RawCase:
    """A rerun's report where its sandbox gave none (killed, failed, no sandbox to run in)."""
    return unreported(job, spec["name"], ["killed"] * spec["world_size"], "time_limit", 0.0)


def submission_cases(exercise: Exercise, seed: int) -> list[CaseSpec]:
    """The cases of a submission: sample cases from the exercise's public seed, so a learner
    sees the same sample values here as in the browser and the CLI; hidden cases from the
    submission's secret ``seed``."""
    public = {spec["name"]: spec for spec in plan_cases(exercise, only_samples=True)}
    return [public.get(spec["name"], spec) for spec in plan_cases(exercise, seed)]


def sandbox_cases(exercise: Exercise, seed: int, pool: WarmPool) -> SandboxCases:
    """A sandbox-backed ``run_case`` prepared with the submission's cases."""
    return SandboxCases(pool, submission_cases(exercise, seed))
