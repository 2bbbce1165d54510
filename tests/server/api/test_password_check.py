"""The sign-up form's live password check says what sign-up does (one estimator, one
threshold), with a code for each of zxcvbn's messages, rate-limited, and never logs the password."""

from __future__ import annotations

import ast
import inspect
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import zxcvbn.feedback
from fastapi.testclient import TestClient

from server.api.app import create_app
from server.passwords import ADVICE
from server.settings import Settings

STRONG = "violet tractor ninety umbrella"


def client(tmp_path: Path, **overrides: Any) -> TestClient:
    return TestClient(create_app(Settings(data_dir=tmp_path / "data", workers=0, sandbox="none",
                                          allowed_hosts="testserver", **overrides),
                                 embedded_workers=False))


def check(c: TestClient, password: str, username: str = "") -> httpx.Response:
    return c.post("/api/auth/password-check", json={"username": username, "password": password})


def test_a_password_past_what_zxcvbn_reads_is_judged_on_its_start(tmp_path: Path) -> None:
    long_weak, long_strong = "password" * 25, STRONG + "x" * 200  # zxcvbn 4.5 raises past 72
    with client(tmp_path) as c:
        assert check(c, long_weak).json()["acceptable"] is False
        assert check(c, long_strong).json()["acceptable"] is True
        made = c.post("/api/auth/register", json={"username": "lengthy", "password": long_strong})
        assert made.status_code == 201, made.text


def test_common_password_refused_with_its_reason_and_a_passphrase_accepted(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        weak = check(c, "password123").json()
        assert weak["acceptable"] is False and weak["too_short"] is False
        assert weak["score"] < weak["min_score"] == 2 and weak["min_length"] == 8
        assert weak["warning"]["code"] in ADVICE.values()
        assert weak["warning"]["text"] in ADVICE
        strong = check(c, STRONG).json()
        assert strong["acceptable"] is True and strong["score"] >= 2
        for short in (check(c, "Zq9!").json(), check(c, "").json()):
            assert short["acceptable"] is False and short["too_short"] is True


@pytest.mark.parametrize("username,password", [
    ("someone", "password123"), ("someone", "someone1234"), ("someone", "qwertyuiop"),
    ("someone", "1984-05-12"), ("someone", STRONG), ("someone", "tulip-orbit-42-sledge"),
    ("someone", "short"), ("jennifer_l", "Jennifer2019")])
def test_the_check_agrees_with_sign_up(tmp_path: Path, username: str, password: str) -> None:
    with client(tmp_path) as c:
        said = check(c, password, username).json()["acceptable"]
        signed_up = c.post("/api/auth/register", json={"username": username,
                                                       "password": password}).status_code
        assert signed_up == (201 if said else 422)


def test_every_zxcvbn_message_has_a_code() -> None:
    """A new zxcvbn that words its advice otherwise fails here, not silently in English."""
    tree = ast.parse(inspect.getsource(zxcvbn.feedback))
    messages = {call.args[0].value for call in ast.walk(tree)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "_" and isinstance(call.args[0], ast.Constant)}
    assert len(messages) >= 20 and messages == set(ADVICE)
    assert len(set(ADVICE.values())) == len(ADVICE)


def test_checks_per_address_are_limited(tmp_path: Path) -> None:
    with client(tmp_path, password_check_rate="3/minute") as c:
        assert [check(c, f"attempt {i}").status_code for i in range(3)] == [200] * 3
        r = check(c, "attempt 3")
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) >= 1
        # sign-up's own limit is apart: checks do not use it up
        assert c.post("/api/auth/register", json={"username": "after_checks",
                                                  "password": STRONG}).status_code == 201


def test_the_password_is_never_logged_or_echoed(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    secret = "unusual-marmalade-quokka"
    caplog.set_level(logging.DEBUG)
    with client(tmp_path) as c:
        answers = [check(c, secret, "someone"), check(c, secret * 20),  # too long: 422
                   c.post("/api/auth/password-check", json={"password": secret, "username": 7})]
    assert [a.status_code for a in answers] == [200, 422, 422]
    assert all(secret not in a.text for a in answers)
    assert secret not in caplog.text and "password-check" in caplog.text  # the access log ran



def test_the_check_takes_no_query_string(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        r = c.get("/api/auth/password-check", params={"password": "password123"})
    assert r.status_code in (404, 405) and "acceptable" not in r.text


def test_the_web_app_words_every_code_in_both_languages() -> None:
    strings = (Path(__file__).parents[3] / "web" / "src" / "app" / "strings.js").read_text(
        encoding="utf-8")
    english, chinese = strings.split("\n  zh: {\n")
    for code in ADVICE.values():
        assert f'"zxcvbn.{code}"' in english and f'"zxcvbn.{code}"' in chinese
    for text in ADVICE:  # English as zxcvbn words it, so the 422's feedback reads the same
        assert f': {json.dumps(text)},' in english, text
