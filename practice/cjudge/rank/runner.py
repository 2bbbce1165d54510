"""The untrusted end of judging: ``python -m cjudge.rank.runner --result-fd 3``.

What a sandbox runs. It imports torch and the real runtime, announces ``{"ready": true,
"confinement_gaps": [...]}`` on the result channel, then reads ONE job from stdin,
``{"job": JobSpec, "cases": [CaseSpec, ...]}``, as a frame (its inputs' elements as bytes),
and answers one :class:`~cjudge.contract.protocol.RawCase` per case on the result channel (a file
descriptor of its own, never stdout, which carries whatever the learner prints). Each message is
a frame (``switch.packed.framed``): a JSON skeleton with every result tensor's elements as raw
bytes beside it. Tensors stay bytes here, from the request to the ranks and from the ranks to
the result channel: never a list of numbers (``packed.as_view``). It knows no expected values:
the trusted side grades each case (and may kill it after a failing case). What it sends stays
within the job's budget, which grows with the cases' sizes (``values.result_budget``,
``record_bytes`` of the request for its allowance).
One job per process: a warm pool keeps such processes started and waiting, each used for one
submission only. With ``--end-with-stdin`` it exits as soon as stdin closes: as a container's
PID 1 (the docker sandbox) that ends every process of the container once its worker lets go.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from typing import BinaryIO

from ..contract.protocol import RESULT_BYTES, CaseSpec, JobSpec, RawCase
from ..contract.values import result_budget, results_room
from ..real.confine import confinement_gaps
from ..real.process_flags import set_dumpable
from ..switch import packed
from ..switch.ending import unreported

#: room kept for each case still to come, besides its results' (a frame cut by
#: :func:`result_frame` is smaller)
CASE_RESERVE = 128 << 10
#: characters of the ranks' output kept in a cut line
CUT_STDOUT = 8 << 10


def _exit_when_stdin_closes() -> None:
    """Wait for the end of stdin (raw reads: no lock a forked rank could inherit held), then
    exit at once, whatever the job is doing."""
    while os.read(0, 4096):
        pass
    os._exit(0)


def serve(result_fd: int, launcher: str, end_with_stdin: bool = False) -> int:
    """Announce readiness, run one job's cases, report each; the exit status."""
    from ..real.runtime import run_case  # torch is imported here, before "ready"
    from ..real.zygote import start_zygote

    # undumpable: its ranks (same uid) can neither ptrace it nor open its /proc/<pid>/fd files;
    # each rank makes itself dumpable again so that the judge can read its write counters
    set_dumpable(False)
    # its ranks cannot interrupt it with SIGINT; as a container's PID 1 it is also immune to
    # every other signal they send (the kernel drops those PID 1 has no handler for)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if launcher == "fork":
        start_zygote()  # before the job is read: no rank's memory ever holds the job's inputs
    out = os.fdopen(result_fd, "wb")
    # what the ranks cannot be confined by here, for the trusted side to log (see ``confine``)
    ready = _write(out, packed.framed({"ready": True, "confinement_gaps": confinement_gaps()}))
    frame = packed.read_frame(sys.stdin.buffer)
    if frame is None:
        return 0
    if end_with_stdin:
        threading.Thread(target=_exit_when_stdin_closes, daemon=True).start()
    request = packed.unpack(json.loads(frame[0]), frame[1], packed.as_view)
    job: JobSpec = request["job"]
    cases: list[CaseSpec] = request["cases"]
    room = result_budget(cases, request.get("record_bytes", RESULT_BYTES)) - ready
    later = sum(CASE_RESERVE + results_room(c) for c in cases)  # kept for the cases after this
    for case in cases:
        later -= CASE_RESERVE + results_room(case)
        raw = run_case(job, case, launcher=launcher, elements=packed.as_view)
        room -= _write(out, result_frame(job, raw, room - later))
    out.close()
    return 0


def _write(out: BinaryIO, frame: list[packed.Raw]) -> int:
    """Write one frame now; its size in bytes."""
    out.writelines(frame)
    out.flush()
    return _size(frame)


def _size(frame: list[packed.Raw]) -> int:
    """A frame's bytes."""
    return sum(memoryview(part).nbytes for part in frame)


def result_frame(job: JobSpec, raw: RawCase, room: int) -> list[packed.Raw]:
    """The frame of ``job``'s case, within ``room`` bytes: a case whose record is larger (a
    flood of calls, huge results or errors) is reported stopped at the judge's record limit
    (``trace_limit``), without its trace and results, so that the channel's budget is never
    what stops the job (the server would take that for tampering)."""
    frame = packed.framed(raw)
    if _size(frame) <= room:
        return frame
    cut = unreported(job, raw["name"], [r["state"] for r in raw["ranks"]], "trace_limit",
                     raw["wall_ms"], stdout=raw["stdout"][:CUT_STDOUT])
    cut["trace"]["limit"] = "record"
    return packed.framed(cut)


def main() -> int:
    """Parse the arguments and serve one job."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--result-fd", type=int, default=3)
    p.add_argument("--launcher", choices=("fork", "torchrun"), default="fork",
                   help="how ranks start: forked by a zygote that never saw the job, or by torchrun")
    p.add_argument("--end-with-stdin", action="store_true",
                   help="exit as soon as stdin closes, even in the middle of a job")
    args = p.parse_args()
    return serve(args.result_fd, args.launcher, args.end_with_stdin)


if __name__ == "__main__":
    sys.exit(main())
