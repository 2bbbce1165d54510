"""Schemathesis over every operation of the OpenAPI schema, anonymous and logged in: whatever
a client sends, the answer is never a 5xx, and it is what the schema says (a documented status,
content type and body). (An in-process app without workers.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from server.api.app import create_app
from server.settings import Settings

EXAMPLES = 15  # per operation and mode
GENEROUS = {"signup_rate": "10000/minute", "login_rate_ip": "10000/minute",
            "login_failures_account": "10000/minute", "login_failures_pair": "10000/minute",
            "submit_rate_ip": "10000/minute",
            "rate_per_minute": 10000, "max_queued_per_user": 10000, "max_pending_per_ip": 10000}


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[object, str]]:
    """The app (started) and a learner's token."""
    data: Path = tmp_path_factory.mktemp("fuzz")
    app = create_app(Settings(data_dir=data, workers=0, sandbox="none",
                              allowed_hosts="testserver,localhost", **GENEROUS),
                     embedded_workers=False)
    with TestClient(app) as c:
        token = c.post("/api/auth/register", json={"username": "fuzz_learner",
                                                   "password": "correct horse battery"}
                       ).json()["token"]
        yield app, token


#: what every answer must pass: no 5xx, and the schema's status codes, content types and bodies
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


def test_every_answer_is_documented_and_never_a_5xx(fuzzed) -> None:
    app, token = fuzzed
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 8
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzz_operation(operation, mode, token)


def fuzz_operation(operation, mode: GenerationMode, token: str) -> None:
    """Requests to ``operation`` valid (or not) by the schema, anonymous and logged in, with
    a hostile ``Last-Event-ID`` too: every answer below 500 and as the schema documents it."""

    @given(case=operation.as_strategy(mode), last_event_id=st.text(
        st.characters(min_codepoint=33, max_codepoint=126), max_size=30))
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case, last_event_id: str) -> None:
        for auth in ({}, {"Authorization": f"Bearer {token}"}):
            headers = {**(case.headers or {}), **auth, "Last-Event-ID": last_event_id}
            response = case.call(headers=headers)
            case.validate_response(response, checks=CHECKS, headers=headers)

    try:
        run()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE  # nothing invalid to send (no parameters)
