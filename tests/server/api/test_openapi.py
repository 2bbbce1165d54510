"""The OpenAPI document as a contract: security schemes (``/docs``' Authorize button), stable
operation ids, the error model on every operation, and a typed body for every JSON answer."""

from __future__ import annotations

import pytest

from server.api.app import create_app
from server.settings import Settings

#: the operation ids clients are generated with: changing one breaks them
OPERATIONS = {
    ("post", "/api/auth/register"): "register", ("post", "/api/auth/login"): "login",
    ("post", "/api/auth/password-check"): "check_password",
    ("post", "/api/auth/logout"): "logout", ("get", "/api/auth/me"): "me",
    ("get", "/api/exercises"): "list_exercises",
    ("get", "/api/exercises/{exercise_id}"): "get_exercise",
    ("post", "/api/submissions"): "create_submission",
    ("get", "/api/submissions"): "list_submissions",
    ("get", "/api/submissions/{submission_id}"): "get_submission",
    ("get", "/api/submissions/{submission_id}/events"): "submission_events",
    ("get", "/healthz"): "healthz",
    ("get", "/api/exercises/{exercise_id}/leaderboard"): "get_leaderboard",
    ("get", "/api/exercises/{exercise_id}/versions"): "get_versions",
    ("get", "/api/me/profile"): "get_profile", ("put", "/api/me/profile"): "put_profile",
    ("get", "/api/me/progress"): "get_my_progress", ("get", "/api/me/quota"): "get_quota",
    ("get", "/api/admin/progress"): "get_progress",
    ("get", "/api/admin/progress.csv"): "get_progress_csv",
    ("post", "/api/admin/regrade"): "post_regrade",
    ("get", "/api/admin/regrade/count"): "get_regrade_count",
    ("post", "/api/admin/submissions/{submission_id}/regrade"): "post_submission_regrade",
    ("put", "/api/admin/users/{username}/role"): "put_role",
    ("get", "/api/admin/staff"): "get_staff", ("get", "/api/admin/assignments"): "get_assignments",
    ("put", "/api/admin/exercises/{exercise_id}/deadline"): "put_deadline",
    ("delete", "/api/admin/exercises/{exercise_id}/assignment"): "delete_assignment",
    ("get", "/api/admin/gradebook.csv"): "get_gradebook_csv"}
#: SSE, CSV, 204
NOT_JSON = {"submission_events", "get_progress_csv", "get_gradebook_csv", "logout", "delete_assignment"}
ERROR = {"$ref": "#/components/schemas/ErrorOut"}


@pytest.fixture(scope="module")
def operations(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict]:
    """The document's operations by (method, path); its components under ``None``."""
    app = create_app(Settings(data_dir=tmp_path_factory.mktemp("openapi"), workers=0,
                              sandbox="none"), embedded_workers=False)
    schema = app.openapi()
    return {(method, path): op for path, ops in schema["paths"].items()
            for method, op in ops.items()} | {("", ""): schema["components"]}


def test_bearer_and_cookie_security_schemes(operations: dict) -> None:
    schemes = operations[("", "")]["securitySchemes"]
    assert (schemes["bearer"]["type"], schemes["bearer"]["scheme"]) == ("http", "bearer")
    assert (schemes["cookie"]["type"], schemes["cookie"]["in"], schemes["cookie"]["name"]) == \
        ("apiKey", "cookie", "cjudge_token")
    assert operations[("get", "/api/submissions/{submission_id}")]["security"] == [
        {"bearer": []}, {"cookie": []}]
    assert "security" not in operations[("get", "/api/exercises")]  # anonymous


def test_stable_operation_ids(operations: dict) -> None:
    assert {key: op["operationId"] for key, op in operations.items() if key[0]} == OPERATIONS


def test_every_operation_has_the_error_model_and_typed_answers(operations: dict) -> None:
    for (method, path), op in operations.items():
        if not method:
            continue
        answers = op["responses"]
        assert answers["default"]["content"]["application/json"]["schema"] == ERROR, path
        for status, answer in answers.items():
            body = (answer.get("content") or {}).get("application/json", {}).get("schema")
            if status[0] in "45" and path != "/healthz":
                assert body == ERROR, (method, path, status)
            if status[0] == "2" and op["operationId"] not in NOT_JSON:
                assert body and "additionalProperties" not in body, (method, path, status)
    health = operations[("get", "/healthz")]["responses"]["503"]
    assert health["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/HealthOut"}
    result = operations[("", "")]["schemas"]["SubmissionOut"]["properties"]["result"]
    assert {"$ref": "#/components/schemas/VerdictOut"} in result["anyOf"]


def test_the_error_model_requires_its_three_fields(operations: dict) -> None:
    error = operations[("", "")]["schemas"]["ErrorOut"]
    assert {"code", "detail", "message_zh"} <= set(error["required"])


def test_each_operation_declares_the_session_it_needs_and_its_401(operations: dict) -> None:
    logout = operations[("post", "/api/auth/logout")]
    assert logout["security"] == [{"bearer": []}, {"cookie": []}, {}]  # anonymous too
    assert "401" not in logout["responses"]
    for (method, path), op in operations.items():
        if method and op.get("security") and {} not in op["security"]:
            assert "401" in op["responses"], (method, path)
    for path in ("/api/admin/progress", "/api/admin/progress.csv", "/api/admin/regrade"):
        op = next(op for (_, p), op in operations.items() if p == path)
        assert "403" in op["responses"], path
