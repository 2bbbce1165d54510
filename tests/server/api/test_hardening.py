"""Sessions, log-in, hostile input, hosts and headers, secrets and files, events
streams and verdict size: each a way the server was abused before issue 17."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from server import jobqueue
from server.accounts import create_user
from server.api.app import create_app
from server.api.routes import auth as auth_routes
from server.db import make_engine, migrate, write_session
from server.models import Exercise, Submission
from server.settings import Settings

GOOD = "correct horse battery"


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    return Settings(**{"data_dir": tmp_path / "data", "workers": 0, "sandbox": "none",
                       "allowed_hosts": "testserver", **overrides})


def client(settings: Settings) -> TestClient:
    return TestClient(create_app(settings, embedded_workers=False))


def register(c: TestClient, username: str, password: str = GOOD) -> httpx.Response:
    return c.post("/api/auth/register", json={"username": username, "password": password})


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


# --- sessions ------------------------------------------------------------------------------

def test_logout_revokes_the_token(tmp_path: Path) -> None:
    with client(settings_for(tmp_path)) as c:
        token = register(c, "leaver").json()["token"]
        c.cookies.clear()
        assert c.get("/api/auth/me", headers=bearer(token)).status_code == 200
        assert c.post("/api/auth/logout", headers=bearer(token)).status_code == 204
        assert c.get("/api/auth/me", headers=bearer(token)).status_code == 401
        again = c.post("/api/auth/login", json={"username": "leaver", "password": GOOD})
        assert c.get("/api/auth/me", headers=bearer(again.json()["token"])).status_code == 200


def test_a_database_reset_resurrects_no_session(tmp_path: Path) -> None:
    secret = "k" * 8 + "0123456789abcdefghijklmnopqrstuv"
    with client(settings_for(tmp_path / "one", secret_key=secret)) as c:
        old = register(c, "first_owner").json()["token"]
    with client(settings_for(tmp_path / "two", secret_key=secret)) as c:  # same secret, new db
        assert register(c, "second_owner").json()["user"]["id"] == 1
        c.cookies.clear()
        assert c.get("/api/auth/me", headers=bearer(old)).status_code == 401


# --- log-in ----------------------------------------------------------------------------------

def test_failed_logins_lock_out_only_their_address(tmp_path: Path) -> None:
    with client(settings_for(tmp_path, login_failures_pair="3/minute")) as c:
        register(c, "Target_User")
        wrong = {"username": "target_user", "password": "not the password"}
        codes = [c.post("/api/auth/login", json=wrong).status_code for _ in range(4)]
        assert codes == [401, 401, 401, 429]
        right = c.post("/api/auth/login", json={"username": "TARGET_USER", "password": GOOD})
        assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1


def test_an_attacker_failing_on_purpose_does_not_lock_the_victim_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failures from one address on someone else's name: that address is refused, the account's
    log-ins are slowed (bounded), and its owner logs in from another address. Windows of an
    hour, which no run outlasts however loaded the machine; the delay is read where the route
    asks for it, not guessed from the wall clock, which also counts the hashing."""
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)
        await asyncio.sleep(delay)

    monkeypatch.setattr(auth_routes, "asyncio", SimpleNamespace(sleep=sleep))
    settings = settings_for(tmp_path, login_failures_pair="5/hour",
                            login_failures_account="8/hour", login_delay_max_s=0.4)
    app = create_app(settings, embedded_workers=False)
    with TestClient(app, client=("203.0.113.66", 4444)) as attacker:
        assert register(attacker, "victim_user").status_code == 201
        attacker.cookies.clear()
        wrong = {"username": "Victim_User", "password": "guess number one"}
        codes = [attacker.post("/api/auth/login", json=wrong).status_code for _ in range(12)]
        for i in range(1, 5):  # the attack spread over more addresses spends the account's budget
            other = TestClient(app, client=(f"198.51.100.{i}", 4444))
            codes += [other.post("/api/auth/login", json=wrong).status_code for _ in range(2)]
        victim = TestClient(app, client=("192.0.2.10", 5555))
        slept.clear()
        started = time.monotonic()
        r = victim.post("/api/auth/login", json={"username": "victim_user", "password": GOOD})
        took = time.monotonic() - started
        assert r.status_code == 200, r.text
        assert r.json()["user"]["username"] == "victim_user"
        assert slept == [0.4] and took >= 0.4  # slowed by the account's failures, bounded
        assert codes == [401] * 5 + [429] * 7 + [401] * 8  # only the first address is locked out
        again = attacker.post("/api/auth/login", json={"username": "victim_user",
                                                       "password": GOOD})
        assert again.status_code == 429  # the attacking address stays locked out


def test_logins_are_throttled_per_address(tmp_path: Path) -> None:
    with client(settings_for(tmp_path, login_rate_ip="2/minute")) as c:
        body = {"username": "nobody_at_all", "password": "whatever else"}
        codes = [c.post("/api/auth/login", json=body).status_code for _ in range(3)]
        assert codes == [401, 401, 429]
        assert c.post("/api/auth/login", json=body).json()["code"] == "rate_limited"


def test_unknown_names_cost_a_hash_check_too(tmp_path: Path, monkeypatch) -> None:
    from server import accounts

    checked: list[str] = []
    real = accounts.verify_password
    monkeypatch.setattr(accounts, "verify_password",
                        lambda h, p: checked.append(h) or real(h, p))
    with client(settings_for(tmp_path)) as c:
        r = c.post("/api/auth/login", json={"username": "ghost_user", "password": "any password"})
        assert r.status_code == 401 and r.json()["code"] == "bad_credentials"
    assert checked == [accounts.DUMMY_HASH]


def test_weak_passwords_and_names_differing_in_case(tmp_path: Path) -> None:
    with client(settings_for(tmp_path)) as c:
        weak = register(c, "someone", "password")
        assert weak.status_code == 422 and weak.json()["code"] == "weak_password"
        assert register(c, "someone", "someone1234").json()["code"] == "weak_password"
        assert register(c, "MixedCase").status_code == 201
        assert register(c, "mixedcase").json()["code"] == "username_taken"
        r = c.post("/api/auth/login", json={"username": "MIXEDCASE", "password": GOOD})
        assert r.json()["user"]["username"] == "MixedCase"


# --- hostile input ----------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), [
    ("POST", "/api/auth/register", b'{"username": "x\\ud800yz", "password": "p\\udfffassword!"}',
     {}, 422),
    ("POST", "/api/auth/login", b'{"username": "\\ud800\\ud800\\ud800", "password": "x"}', {},
     422),
    ("GET", "/api/submissions/99999999999999999999999", None, {}, 422),
    ("GET", "/api/submissions?before=99999999999999999999999", None, {}, 422),
    ("GET", "/api/submissions/1/events", None, {"last-event-id": "abc"}, 400),
    ("GET", "/api/submissions/1/events", None, {"last-event-id": "9" * 40}, 400),
    ("POST", "/api/submissions", b'{"exercise": "\\ud800", "code": "\\udfff"}', {}, 422),
    ("POST", "/api/submissions", b'{"exercise": "ring-allreduce", "code": "s = \\"\\ud800\\""}',
     {}, 422),
])
def test_hostile_input_is_a_4xx(tmp_path: Path, method: str, path: str, body: bytes | None,
                                headers: dict, status: int) -> None:
    with client(settings_for(tmp_path)) as c:
        token = register(c, "prober").json()["token"]
        r = c.request(method, path, content=body,
                      headers={**bearer(token), "content-type": "application/json", **headers})
        assert r.status_code == status, r.text
        assert "\\ud800" not in r.text and "\\udfff" not in r.text  # input never echoed


def test_an_unexpected_error_is_one_line_with_a_request_id(tmp_path: Path, caplog,
                                                             monkeypatch) -> None:
    from server.api.routes import exercises

    def broken(*_: Any) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(exercises, "_summary", broken)
    with client(settings_for(tmp_path)) as c, caplog.at_level(logging.ERROR, "server.api"):
        r = c.get("/api/exercises")
    assert r.status_code == 500 and r.json()["code"] == "internal"
    rid = r.json()["request_id"]
    assert r.headers["x-request-id"] == rid and "boom" not in r.text
    lines = [rec.getMessage() for rec in caplog.records if rid in rec.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and "RuntimeError: boom" in lines[0]


# --- hosts and headers -------------------------------------------------------------------------

def test_unknown_hosts_are_refused(tmp_path: Path) -> None:
    with client(settings_for(tmp_path, allowed_hosts="testserver,judge.example.org")) as c:
        assert c.get("/api/exercises", headers={"host": "rebind.attacker.test"}).status_code == 400
        assert c.get("/api/exercises", headers={"host": "judge.example.org:8443"}
                     ).status_code == 200


def test_security_headers_and_self_hosted_docs(tmp_path: Path) -> None:
    with client(settings_for(tmp_path)) as c:
        headers = c.get("/api/exercises").headers
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
        docs = c.get("/docs")
        assert docs.status_code == 200 and "cdn" not in docs.text.lower()
        assert "http" not in docs.headers["content-security-policy"]
        assert c.get("/static-offline-docs/swagger-ui-bundle.js").status_code == 200


def test_cookie_is_secure_when_the_trusted_proxy_says_https(tmp_path: Path) -> None:
    with client(settings_for(tmp_path)) as c:
        plain = register(c, "plain_http").headers["set-cookie"].lower()
    with TestClient(create_app(settings_for(tmp_path / "tls"), embedded_workers=False),
                    base_url="https://testserver") as c:
        tls = register(c, "over_https").headers["set-cookie"].lower()
    assert "secure" not in plain and "; secure" in tls


# --- secrets and files ---------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["changeme", "a" * 64, "short-but-random-Xq3"])
def test_weak_secret_keys_are_refused(key: str) -> None:
    with pytest.raises(ValidationError, match="at least 32 random bytes"):
        Settings(secret_key=key)


def test_data_directory_and_database_are_private(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    with client(settings):
        pass
    assert settings.data_dir.stat().st_mode & 0o777 == 0o700
    assert (settings.data_dir / "judge.db").stat().st_mode & 0o777 == 0o600


# --- event streams and verdict size ----------------------------------------------------------

def test_streams_per_user_are_capped_and_end(tmp_path: Path) -> None:
    with client(settings_for(tmp_path, max_streams_per_user=1, stream_max_s=0.5,
                             rate_per_minute=100)) as c:
        token = register(c, "streamer").json()["token"]
        sid = c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "x = 1"},
                     headers=bearer(token)).json()["id"]
        with c.stream("GET", f"/api/submissions/{sid}/events", headers=bearer(token)) as first:
            assert first.status_code == 200
            second = c.get(f"/api/submissions/{sid}/events", headers=bearer(token))
            assert second.status_code == 429 and second.json()["code"] == "too_many_streams"
            text = "".join(first.iter_text())  # ends by itself: the job never runs here
        assert "event: status" in text and "event: done" not in text
        with c.stream("GET", f"/api/submissions/{sid}/events", headers=bearer(token)) as again:
            assert again.status_code == 200  # the first stream's place was given back


def test_a_huge_verdict_is_stored_bounded(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    migrate(settings.url)
    engine = make_engine(settings.url)
    with write_session(engine) as s:
        s.add(Exercise(id="ex", title_en="t", title_zh="t", statement_en="", statement_zh="",
                       starter="", content_hash="h"))
        user = create_user(s, "tracer", GOOD).id
        sid = jobqueue.enqueue(s, settings, user, "ex", "h", "x", "a.py").id
    with write_session(engine) as s:
        claim = jobqueue.claim(s, "w", 30, 3)
    trace = [{"op": "isend", "src": 0, "dst": 1, "bytes": 4, "line": i} for i in range(48_000)]
    result = {"verdict": "accepted", "stdout": "", "cases": [
        {"name": "a", "verdict": "accepted", "bytes_sent": [4], "trace": trace},
        {"name": "b", "verdict": "accepted", "bytes_sent": [4], "trace": trace[:10]}]}
    with write_session(engine) as s:
        assert jobqueue.finish(s, claim, result, None, limit_bytes=64 * 1024)
    with write_session(engine) as s:
        row = s.get(Submission, sid)
        stored = len(json.dumps(row.result)) + len(json.dumps(row.cases_so_far))
        assert stored <= 64 * 1024
        assert row.result["cases"][0]["trace_truncated"] and row.result["cases"][1]["trace"]
        assert [c["verdict"] for c in row.result["cases"]] == ["accepted", "accepted"]
    engine.dispose()


def test_the_finished_submissions_cache_is_bounded_in_bytes() -> None:
    from server.api.cache import ENTRY_BYTES, DoneCache

    cache = DoneCache(max_bytes=10_000)
    for sid in range(100):
        cache.put(sid, False, 1, b"x" * 1000)
    assert cache.bytes <= 10_000 and len(cache.items) == 10_000 // (1000 + ENTRY_BYTES)
    assert cache.get(99, False) is not None and cache.get(0, False) is None
    assert cache.get(93, False) is not None  # least recently used: 94 goes first now
    cache.put(100, False, 1, b"x" * 1000)
    assert cache.get(93, False) is not None and cache.get(94, False) is None
    cache.put(500, False, 1, b"y" * 5000)  # over a quarter of the cache: not kept
    assert cache.get(500, False) is None
    for sid in range(10_000):  # many tiny answers are bounded by their entries' cost
        cache.put(sid, True, 1, b"")
    assert len(cache.items) == 10_000 // ENTRY_BYTES


def test_a_full_caller_cache_drops_the_least_recently_used_only() -> None:
    from server.api.deps import MAX_CALLERS, Caller, CallerCache

    cache = CallerCache()
    for user_id in range(MAX_CALLERS):
        cache.put(Caller(user_id, f"user{user_id}", "learner"))
    assert cache.get(0) is not None  # used again: the least recently used is now 1
    cache.put(Caller(MAX_CALLERS, "newcomer", "learner"))
    assert len(cache.items) == MAX_CALLERS
    assert cache.get(1) is None and cache.get(0) is not None and cache.get(MAX_CALLERS) is not None
    cache.forget(0)
    assert cache.get(0) is None


def _finish(app, sid: int, cases: list[dict]) -> None:
    """Grade submission ``sid`` as a worker would, with ``cases`` as its verdict's cases."""
    engine = app.state.engine
    with write_session(engine) as s:
        claim = jobqueue.claim(s, "w", 30, 3)
        assert claim is not None and claim.id == sid
    with write_session(engine) as s:
        assert jobqueue.finish(s, claim, {"verdict": "accepted", "stdout": "", "cases": cases},
                               None)


def test_finished_events_come_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    from server.api.routes import events

    with client(settings_for(tmp_path, rate_per_minute=100)) as c:
        owner = bearer(register(c, "finisher").json()["token"])
        other = bearer(register(c, "onlooker").json()["token"])
        sid = c.post("/api/submissions", json={"exercise": "ring-allreduce", "code": "x = 1"},
                     headers=owner).json()["id"]
        _finish(c.app, sid, [{"name": f"case{i}", "verdict": "accepted"} for i in range(3)])
        first = c.get(f"/api/submissions/{sid}/events", headers=owner)
        assert first.status_code == 200
        assert first.text.count("event: case") == 3 and "event: done" in first.text
        assert c.app.state.events_cache.get(sid, False) is not None
        assert c.get(f"/api/submissions/{sid}/events", headers=other).status_code == 404

        def no_database(*_: Any) -> None:
            raise AssertionError("a finished submission's events were read again")

        monkeypatch.setattr(events, "present", no_database)
        again = c.get(f"/api/submissions/{sid}/events", headers=owner)
        assert again.status_code == 200 and again.text == first.text
        resumed = c.get(f"/api/submissions/{sid}/events",
                        headers={**owner, "last-event-id": "1"}).text
        assert "\nid: 2\n" in resumed and "\nid: 1\n" not in resumed
        assert resumed.count("event: case") == 1
        assert resumed.startswith("event: status") and "event: done" in resumed


def test_the_finished_events_cache_is_bounded_in_bytes(tmp_path: Path) -> None:
    from server.api.cache import ENTRY_BYTES

    limit = 40_000
    with client(settings_for(tmp_path, rate_per_minute=100, max_queued_per_user=100,
                             events_cache_bytes=limit)) as c:
        owner = bearer(register(c, "many_done").json()["token"])
        cache = c.app.state.events_cache
        for _ in range(8):
            sid = c.post("/api/submissions", json={"exercise": "ring-allreduce",
                                                   "code": "y = 2"}, headers=owner).json()["id"]
            # about 8 KB of events each: under a quarter of the cache, so each one is kept
            _finish(c.app, sid, [{"name": "big", "verdict": "accepted", "message": "z" * 2000}])
            assert c.get(f"/api/submissions/{sid}/events", headers=owner).status_code == 200
            assert 0 < cache.bytes <= limit
            assert cache.bytes == sum(len(events) + ENTRY_BYTES for _, events in cache.items.values())
        assert cache.get(sid, False) is not None and len(cache.items) < 8
