"""``over_budget`` against the reference, way by way: a collective by its kind whichever of its
calls the learner made (the switch records an alias under its one name: ``test_call_names``), a
symmetric-memory load as a load (counted once, never a send), and the call the reference makes
instead of one it never makes."""

from __future__ import annotations

import base64
import struct

from cjudge.grading.budget import against_reference, over_budget

ALGO = ("the reference", "参考解")


def _req(rid: int, kind: str, api: str, sent: int, peer: int | None = None,
         line: int = 9) -> dict:
    return {"id": rid, "rank": 0, "kind": kind, "api": api, "peer": peer, "sent": sent,
            "bytes": sent, "dtype": "float32", "line": line, "graded": True}


def _payload(values: list[float]) -> dict:
    return {"dtype": "float32", "b64": base64.b64encode(struct.pack(f"<{len(values)}f",
                                                                     *values)).decode()}


def _trace(requests: list[dict], loads: bool = False,
           inputs: dict[int, list[float]] | None = None) -> dict:
    """Rank 0's calls; a load's message goes from the buffer's owner to rank 0, as the switch
    records it; ``inputs``: a collective call's input, recorded by its request id."""
    messages = [{"id": r["id"], "src": r["peer"], "dst": 0, "bytes": r["sent"], "send": r["id"],
                 "recv": r["id"], "data": {"dtype": "float32",
                                           "b64": base64.b64encode(bytes(r["sent"])).decode()}}
                for r in requests if loads and r["kind"] == "symm_read"]
    collectives = [{"id": rid, "requests": [rid], "data": [_payload(values)]}
                   for rid, values in (inputs or {}).items()]
    return {"world_size": 4, "requests": requests, "messages": messages,
            "collectives": collectives}


def test_another_call_of_the_references_collective_is_compared_with_it():
    learner = _trace([_req(1, "all_gather", "all_gather", 64)])  # the list form
    reference = _trace([_req(1, "all_gather", "all_gather_into_tensor", 48)])
    en, zh = against_reference(learner, reference, 0, ALGO) or ("", "")
    assert "64 bytes in all_gather where the reference sends 48" in en
    assert "all_gather_into_tensor" not in en and "sends 0" not in en
    assert "在 all_gather 中 64 字节，而参考解发送 48 字节" in zh


def test_a_collective_the_reference_never_calls_names_what_it_calls_instead():
    learner = _trace([_req(1, "all_reduce", "all_reduce", 96)])
    reference = _trace([_req(1, "reduce_scatter", "reduce_scatter_tensor", 24),
                        _req(2, "all_gather", "all_gather_into_tensor", 24)])
    en, zh = against_reference(learner, reference, 0, ALGO) or ("", "")
    assert "makes no all_reduce call: it uses reduce_scatter_tensor, all_gather_into_tensor " \
           "instead" in en
    assert "参考解不调用 all_reduce，而是用 reduce_scatter_tensor、all_gather_into_tensor" in zh


def test_loads_are_counted_once_and_never_called_sends():
    learner = _trace([_req(i, "symm_read", "symm.read", 64, peer=i) for i in (1, 2, 3)], loads=True)
    reference = _trace([_req(i, "symm_read", "symm.read", 16, peer=i) for i in (1, 2, 3)],
                       loads=True)
    en, zh = against_reference(learner, reference, 0, ALGO) or ("", "")
    assert en.startswith("on the same inputs the reference's rank 0 moves 48 bytes; yours loaded "
                         "64 bytes from each of ranks 1, 2, 3 where the reference loads 16")
    assert "pass symm.read only the elements you need" in en
    assert "send" not in en and "发送" not in zh
    assert "读取自 rank 1、2、3 各 64 字节，而参考解读取 16 字节" in zh
    head, head_zh = over_budget(learner, 0, 192, 48, 4)
    assert head.startswith("correct, but rank 0 moved 192 bytes in 3 calls (line 9: 3 loads "
                           "(symm.read) from ranks 1, 2, 3, 48 elements)")
    assert "send" not in head and "发送" not in head_zh


def test_extra_calls_that_send_again_what_another_sent_are_named_as_repeats():
    """Layer 0's shard gathered twice (a "warm-up" whose result is thrown away): the extra call
    repeats data, and the message says to make each call once; a fifth call of new data does
    not."""
    shards = {1: [1.0, 2.0], 2: [3.0, 4.0]}
    reference = _trace([_req(1, "all_gather", "all_gather", 8), _req(2, "all_gather",
                                                                     "all_gather", 8)],
                       inputs=shards)
    twice = _trace([_req(i, "all_gather", "all_gather", 8) for i in (1, 2, 3)],
                   inputs={**shards, 3: [1.0, 2.0]})
    en, zh = against_reference(twice, reference, 0, ALGO) or ("", "")
    assert "(3 calls where the reference makes 2: the extra ones send again what another " \
           "call sent; make each once)" in en
    assert "多出的调用重复发送了另一次调用已发送的数据" in zh
    new = _trace([_req(i, "all_gather", "all_gather", 8) for i in (1, 2, 3)],
                 inputs={**shards, 3: [5.0, 6.0]})
    en, _ = against_reference(new, reference, 0, ALGO) or ("", "")
    assert "(3 calls where the reference makes 2)" in en
