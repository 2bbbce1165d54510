"""Settings from the environment: lists written as before (comma-separated) or as JSON lists,
secrets never shown, a sandbox name checked at once, and the settings passed on to the
workers' environment read back the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from server.settings import Settings, settings_env

SECRET = "k" * 8 + "0123456789abcdefghijklmnopqrstuv"


def test_lists_read_as_before_or_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CJUDGE_ALLOWED_HOSTS", "judge.example.org, localhost,,")
    monkeypatch.setenv("CJUDGE_TRUSTED_PROXIES", '["10.0.0.1", "10.0.0.2"]')
    monkeypatch.setenv("CJUDGE_INVITE_CODES", "")
    settings = Settings()
    assert settings.allowed_hosts == ["judge.example.org", "localhost"]
    assert settings.trusted_proxies == ["10.0.0.1", "10.0.0.2"]
    assert settings.invite_codes == []
    assert "root" in settings.reserved_names


def test_secrets_are_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CJUDGE_ADMIN_PASSWORD", "the staff passphrase")
    monkeypatch.setenv("CJUDGE_INVITE_CODES", "course-2024-x1")
    settings = Settings(secret_key=SECRET)
    shown = repr(settings) + str(settings.model_dump())
    assert SECRET not in shown and "the staff passphrase" not in shown
    assert "course-2024-x1" not in shown
    assert settings.secret == SECRET


def test_a_sandbox_name_is_checked_at_once() -> None:
    with pytest.raises(ValidationError, match="'bwrap', 'docker' or 'none'"):
        Settings(sandbox="dockr")


def test_the_workers_environment_reads_back_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(secret_key=SECRET, admin_password="the staff passphrase",
                        invite_codes="a,b", allowed_hosts="judge.example.org,[::1]",
                        sandbox="none")
    for name, value in settings_env(settings).items():
        if name.startswith("CJUDGE_"):
            monkeypatch.setenv(name, value)
    again = Settings()
    paths = {name for name, value in settings.model_dump().items() if isinstance(value, Path)}
    assert again.model_dump(exclude=paths) == settings.model_dump(exclude=paths)  # paths: resolved
    assert again.secret == SECRET
    assert [code.get_secret_value() for code in again.invite_codes] == ["a", "b"]
    assert again.admin_password is not None
    assert again.admin_password.get_secret_value() == "the staff passphrase"
