"""The thread transport's contract (see cjudge/sim/transport.py): gloo's rendezvous semantics."""

from __future__ import annotations

import threading

from cjudge.sim.threads import ThreadTransport


def test_a_send_completes_only_once_the_receive_is_posted():
    tr = ThreadTransport(2)
    s = tr.post_send(0, 1, "t", b"abc")
    assert not tr.test(s)
    r = tr.post_recv(1, 0, "t")
    assert tr.test(s) and tr.test(r)
    assert tr.wait(0, s, "send") is None
    assert tr.wait(1, r, "recv") == (0, b"abc")


def test_matching_is_oldest_first_per_tag_and_any_source_takes_the_first_sender():
    tr = ThreadTransport(3)
    first, second = tr.post_send(0, 2, "a", b"1"), tr.post_send(0, 2, "a", b"2")
    other_tag = tr.post_send(1, 2, "b", b"x")
    r1, r2 = tr.post_recv(2, 0, "a"), tr.post_recv(2, 0, "a")
    assert tr.wait(2, r1, "recv") == (0, b"1") and tr.wait(2, r2, "recv") == (0, b"2")
    assert tr.test(first) and tr.test(second) and not tr.test(other_tag)
    anyone = tr.post_recv(2, None, "b")
    assert tr.wait(2, anyone, "recv") == (1, b"x")


def test_a_blocked_wait_is_visible_and_everyone_blocked_is_a_deadlock():
    tr = ThreadTransport(2)
    h0, h1 = tr.post_recv(0, 1, "t"), tr.post_recv(1, 0, "t")
    threads = [threading.Thread(target=tr.wait, args=(r, h, "recv"), daemon=True)
               for r, h in ((0, h0), (1, h1))]
    for t in threads:
        t.start()
    snap = tr.snapshot()
    while not snap.deadlocked:
        tr.watch(snap.version, 5.0)
        snap = tr.snapshot()
    assert snap.blocked == {0: ("recv", 1), 1: ("recv", 0)}
    tr.post_send(1, 0, "t", b"")  # unblocks rank 0: no longer a deadlock
    tr.post_send(0, 1, "t", b"")
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads) and not tr.snapshot().deadlocked


def test_a_finished_rank_leaves_its_peer_blocked_not_failed():
    tr = ThreadTransport(2)
    tr.finish(0, "returned")
    h = tr.post_recv(1, 0, "t")
    thread = threading.Thread(target=tr.wait, args=(1, h, "recv"), daemon=True)
    thread.start()
    snap = tr.snapshot()
    while not snap.deadlocked:
        tr.watch(snap.version, 5.0)
        snap = tr.snapshot()
    assert snap.finished == {0: "returned"} and snap.blocked == {1: ("recv", 0)}
