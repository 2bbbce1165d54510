"""Accounts: a password hash made with older argon2 parameters is renewed at the next log-in
(the same password, the sessions kept); a failed log-in renews nothing."""

from __future__ import annotations

from pathlib import Path

from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from server.accounts import create_user
from server.api.app import create_app
from server.db import make_engine, migrate, write_session
from server.models import User
from server.security import needs_rehash, verify_password
from server.settings import Settings

PASSWORD = "correct horse battery"


def test_login_renews_a_hash_of_older_parameters(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, workers=0, sandbox="none", allowed_hosts="testserver")
    migrate(settings.url)
    engine = make_engine(settings.url)
    old = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1).hash(PASSWORD)
    assert needs_rehash(old)
    with write_session(engine) as session:
        user = create_user(session, "veteran", PASSWORD)
        user.password_hash = old
        user_id = user.id

    def stored() -> str:
        with write_session(engine) as session:
            return session.get_one(User, user_id).password_hash

    with TestClient(create_app(settings, embedded_workers=False)) as client:
        wrong = client.post("/api/auth/login", json={"username": "veteran", "password": "not the password"})
        assert wrong.status_code == 401 and stored() == old
        first = client.post("/api/auth/login", json={"username": "veteran", "password": PASSWORD})
        assert first.status_code == 200
        renewed = stored()
        assert renewed != old and not needs_rehash(renewed) and verify_password(renewed, PASSWORD)
        client.cookies.clear()
        me = client.get("/api/auth/me", headers={"authorization": f"Bearer {first.json()['token']}"})
        assert me.status_code == 200  # the session goes on: only the hash changed
        again = client.post("/api/auth/login", json={"username": "veteran", "password": PASSWORD})
        assert again.status_code == 200 and stored() == renewed  # current: left alone
    engine.dispose()
