"""The workers path (no JSPI): a rank in a worker of its own, the switch in the judge's worker.

A rank's every call on its port is one request over shared memory
(``web/src/runner/sync-call.js``): the rank's worker blocks in ``Atomics.wait`` until the judge
answers. The judge's loop (:func:`serve`) reads the requests, makes the calls on the case's one
switch, and answers a ``wait`` only once the switch has put the rank on ``woken``. A message is
one frame of ``cjudge.switch.wire``, as on a real rank's channel: a JSON header, raw bytes.

A learner's file runs in the rank's worker and can reach its request function: the judge
treats every request as untrusted, and a malformed one is that rank's ``runtime_error``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TypedDict, TypeVar, cast

from pyodide.ffi import to_js

from cjudge.contract.protocol import JobSpec, RankReport, TensorData
from cjudge.rank.learner import compile_learner, learner_error
from cjudge.sim.capture import Capture, Router
from cjudge.sim.rank import install_modules, run_rank
from cjudge.switch.core import Flooded, Forbidden, SwitchError
from cjudge.switch.wire import Header, decode, encode

from .case import Aborted, BrowserCase

assert sys.__stdout__ is not None  # Pyodide's stdout, where no rank is running
sys.stdout = sys.stderr = Router(sys.__stdout__)

#: the switch's calls a rank may request, and whether the request carries a payload
CALLS = {"new_group": False, "post_send": True, "post_recv": False, "post_collective": True,
         "test": False, "wait": False, "begin": False, "end": False, "compute": True}

T = TypeVar("T")


class Answer(TypedDict, total=False):
    """The judge's answer to a rank's request, as :class:`Server` writes it and
    :class:`WirePort` reads it: ``ok``, ``abort``, or the switch's error."""

    ok: object  # the call's answer: a group or request number, True, a source rank, an input
    abort: bool  # the case is over: the rank unwinds (:class:`Aborted`)
    error: str  # the switch's error's class name; ``en`` and ``zh`` its message
    en: str
    zh: str
    kind: str  # a :class:`Forbidden`'s call kind and API
    api: str


def _error(exc: SwitchError) -> bytes:
    fields: Answer = {"error": type(exc).__name__, "en": exc.en, "zh": exc.zh}
    if isinstance(exc, Forbidden):
        fields |= {"kind": exc.kind, "api": exc.api}
    return encode(fields)


def _raise(answer: Answer) -> None:
    """Raise the switch's error that ``answer`` carries, as the switch raised it."""
    if answer.get("abort"):
        raise Aborted()
    if answer["error"] == "Forbidden":
        raise Forbidden(answer["kind"], answer["api"])
    raise (Flooded if answer["error"] == "Flooded" else SwitchError)(answer["en"], answer["zh"])


def _as(kind: type[T], answer: object) -> T:
    """The judge's ``answer``, which is a ``kind`` (a rank's call answered by the switch's method
    of that return type)."""
    if not isinstance(answer, kind):
        raise TypeError(f"the judge answered {answer!r}, not a {kind.__name__}")
    return answer


# ---- the rank's side (in its worker) --------------------------------------------------------

class RankOutput(Capture):
    """A rank's own printed output, kept as text for the judge's capture as well."""

    def __init__(self, world: int, limit: int) -> None:
        super().__init__(world, limit)
        self.text: list[str] = []

    def write(self, rank: int, text: str) -> int:
        size = super().write(rank, text)
        self.text.append(text)
        return size


class WirePort:
    """A rank's door to the switch in the judge's worker (``port.Port``): ``request`` sends
    a message and blocks until the answer."""

    def __init__(self, request: Any, rank: int, world: int) -> None:
        self._request, self.rank, self.world = request, rank, world

    def _call(self, method: str, data: bytes = b"", /, **kw: object) -> tuple[object, bytes]:
        header, got = decode(self._request(to_js(encode({"op": method, "kw": kw}, data))).to_bytes())
        answer = cast(Answer, header)  # the judge wrote it (``Server``), as an ``Answer``
        if "ok" not in answer:
            _raise(answer)
        return answer["ok"], got

    def new_group(self, ranks: Sequence[int]) -> int:
        return _as(int, self._call("new_group", ranks=list(ranks))[0])

    def post_send(self, group: int, dst: int, tag: int, payload: bytes, dtype: str,
                  line: int | None, api: str) -> int:
        return _as(int, self._call("post_send", payload, group=group, dst=dst, tag=tag,
                                   dtype=dtype, line=line, api=api)[0])

    def post_recv(self, group: int, src: int | None, tag: int, capacity: int, dtype: str,
                  line: int | None, api: str) -> int:
        return _as(int, self._call("post_recv", group=group, src=src, tag=tag, capacity=capacity,
                                   dtype=dtype, line=line, api=api)[0])

    def post_collective(self, group: int, kind: str, payload: bytes, dtype: str, *,
                        line: int | None, api: str, op: str | None = None,
                        root: int | None = None, splits: list[int] | None = None) -> int:
        return _as(int, self._call("post_collective", payload, group=group, kind=kind, dtype=dtype,
                                   line=line, api=api, op=op, root=root, splits=splits)[0])

    def test(self, handle: int) -> bool:
        return _as(bool, self._call("test", handle=handle)[0])

    def wait(self, handle: int, line: int | None = None) -> tuple[int | None, bytes]:
        src, data = self._call("wait", handle=handle, line=line)
        return (None if src is None else _as(int, src)), data

    def compute(self, handle: int, payload: bytes, dtype: str, shape: list[int],
                args: list[int] | None, line: int | None) -> bytes:
        return self._call("compute", payload, handle=handle, dtype=dtype, shape=shape, args=args,
                          line=line)[1]

    def begin(self) -> TensorData | None:
        # the judge's ``Switch.begin`` as JSON: this rank's case input, or None
        return cast("TensorData | None", self._call("begin")[0])

    def end(self) -> None:
        self._call("end")

    def finish(self, report: RankReport | None, output: RankOutput) -> None:
        """The rank's end (``report`` None: it unwound after the case was over)."""
        self._request(to_js(encode({"op": "finish", "report": report, "output": "".join(output.text),
                                  "exceeded": output.exceeded})))


def rank_main(job_json: str, rank: int, world: int, request: Any) -> None:
    """Run ``rank`` of the case in this worker to its end, every call a ``request``."""
    job: JobSpec = json.loads(job_json)
    install_modules()
    port = WirePort(request, rank, world)
    output = RankOutput(world, job["output_limit_bytes"])
    report: RankReport | None
    try:
        report = run_rank(job, rank, port, compile_learner(job["code"], job["filename"]), output)
    except Aborted:
        report = None
    except BaseException as exc:  # noqa: BLE001 - a learner's own BaseException subclass
        report = RankReport(rank=rank, state="failed", output=None,
                            error=learner_error(exc, job["filename"]))
    port.finish(report, output)


# ---- the judge's side ---------------------------------------------------------------------

class Server:
    """The switch of a :class:`BrowserCase` answering its ranks' requests."""

    def __init__(self, case: BrowserCase, board: Any) -> None:
        self.case, self.switch, self.board = case, case.switch, board
        self.parked: dict[int, int] = {}  # rank -> the request it waits on, unanswered
        self.running = set(range(case.world))  # ranks whose worker still runs this case

    def serve(self) -> None:
        """Answer requests until the case is over and every rank has ended."""
        case = self.case
        while self.running:
            if not case.over and case.check():
                for rank in self.parked:
                    self._answer(rank, encode({"abort": True}))
                self.parked.clear()
            left = 1.0 if case.over else max(case.deadline - time.monotonic(), 0.001)
            rank = self.board.next(left * 1000)
            if rank < 0:
                continue
            answer = self.handle(rank, self.board.read(rank).to_bytes())
            if answer is not None:
                self._answer(rank, answer)
            for woken in self.switch.woken:
                self._answer(woken, self._outcome(woken, self.parked.pop(woken)))
            self.switch.woken.clear()

    def _answer(self, rank: int, message: bytes) -> None:
        if len(message) > self.board.capacity:
            message = _error(SwitchError(f"an answer of {len(message)} bytes is more than the "
                                         "browser's channel holds",
                                         f"{len(message)} 字节的应答超过了浏览器通道的容量"))
        self.board.reply(rank, to_js(message))

    def _outcome(self, rank: int, handle: int) -> bytes:
        try:
            src, data = self.switch.result(rank, handle)
        except SwitchError as exc:
            return _error(exc)
        return encode({"ok": src}, data)

    def handle(self, rank: int, message: bytes) -> bytes | None:
        """The answer to one request of ``rank`` (None: not yet, the rank waits)."""
        try:
            header, data = decode(message)
            op = header.get("op")
            if op == "finish":
                self.running.discard(rank)
                self._finish(rank, header)
                return encode({"ok": None})
            if self.case.over:
                return encode({"abort": True})
            if op not in CALLS:
                raise SwitchError(f"unknown request {op!r}", f"未知的请求 {op!r}")
            kw = header.get("kw")
            if not isinstance(kw, dict):
                raise SwitchError("a request's arguments must be an object", "请求的参数必须是对象")
            if CALLS[op]:
                kw["payload"] = data
            if op == "wait":
                if not self.switch.wait(rank, kw["handle"], kw.get("line")):
                    self.parked[rank] = kw["handle"]
                    return None
                return self._outcome(rank, kw["handle"])
            if op == "compute":  # its answer is the output's bytes
                return encode({"ok": True}, self.switch.compute(rank, **kw))
            return encode({"ok": getattr(self.switch, op)(rank, **kw)})
        except SwitchError as exc:
            return _error(exc)
        except Exception as exc:  # noqa: BLE001 - a forged request is the rank's error
            return _error(SwitchError(f"malformed request to the judge: {exc!r}",
                                      f"发给评测机的请求格式错误：{exc!r}"))

    def _finish(self, rank: int, header: Header) -> None:
        case = self.case
        output = header.get("output")
        if isinstance(output, str) and output and not case.over:
            try:
                case.capture.write(rank, output)
            except BaseException:  # noqa: BLE001 - OutputLimitExceeded: the capture says so
                pass
        if header.get("exceeded"):
            case.capture.exceeded = True
        sent = header.get("report")
        if sent is None and case.over:
            return  # it unwound after the case was over
        report = _report(rank, sent)
        if report is None:
            report = RankReport(rank=rank, state="failed", output=None, error=learner_error(
                RuntimeError("the rank ended without a valid report to the judge"),
                case.job["filename"]))
        case.finish(rank, report)


def _report(rank: int, sent: object) -> RankReport | None:
    """``sent`` as rank ``rank``'s report (None: it is none): an object naming this rank and a
    state a rank ends in. Its output and error are passed on as the rank's worker wrote them."""
    if not isinstance(sent, dict) or sent.get("rank") != rank or \
            sent.get("state") not in ("returned", "failed", "killed"):
        return None
    return cast(RankReport, sent)  # its rank and state checked just above


def serve(case: BrowserCase, board: Any) -> None:
    """Answer the requests of ``case``'s ranks (started in their workers) on ``board``
    until the case is over and every rank has ended."""
    Server(case, board).serve()
