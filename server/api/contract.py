"""The OpenAPI document as a contract: stable operation ids (each route's function name), the
error model (:class:`~.schemas.ErrorOut`) on every error answer of every operation, the Bearer
and cookie security schemes (declared by ``deps.optional_user``'s dependencies) and a 401 on
every operation that needs them."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from .schemas import ErrorOut

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
#: on every operation: any other error answer, in the error model (422 included)
RESPONSES: dict[int | str, dict[str, Any]] = {
    "default": {"model": ErrorOut, "description": "an error: `code` says which"}}
#: a route's error answers, for its ``responses``
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "no such exercise or submission"}}
STAFF_ONLY: dict[int | str, dict[str, Any]] = {403: {"description": "staff only"}}
NOT_LOGGED_IN = {"description": "not logged in (`not_logged_in`)"}
#: a route's ``openapi_extra`` when it takes a session but answers without one too (an empty
#: security requirement, added to the schemes its dependencies declare)
SESSION_OPTIONAL: dict[str, Any] = {"security": [{}]}


def operation_id(route: APIRoute) -> str:
    """A route's operation id: its function's name (``get_submission``), stable across
    versions, as generated clients name their methods."""
    return route.name


def install(app: FastAPI) -> None:
    """Give every operation of ``app``'s document that needs a session its 401, and every
    error answer the error model."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            for operations in build()["paths"].values():
                for operation in operations.values():
                    if operation.get("security") and {} not in operation["security"]:
                        operation["responses"].setdefault("401", dict(NOT_LOGGED_IN))
                    for status, answer in operation["responses"].items():
                        if status[0] in "45" and not _typed(answer):
                            answer["content"] = {"application/json": {"schema": ERROR_REF}}
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]


def _typed(answer: dict[str, Any]) -> bool:
    """Whether a documented answer already names a schema."""
    return any(media.get("schema") for media in (answer.get("content") or {}).values())
