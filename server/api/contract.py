"""The OpenAPI document as a contract: stable operation ids (each route's function name), the
error model (:class:`~.schemas.ErrorOut`) on every error answer of every operation, and the
Bearer and cookie security schemes (declared by ``deps.optional_user``'s dependencies)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute

from .schemas import ErrorOut

ERROR_REF = {"$ref": "#/components/schemas/ErrorOut"}
#: on every operation: any other error answer, in the error model (422 included)
RESPONSES: dict[int | str, dict[str, Any]] = {
    "default": {"model": ErrorOut, "description": "an error: `code` says which"}}


def operation_id(route: APIRoute) -> str:
    """A route's operation id: its function's name (``get_submission``), stable across
    versions, as generated clients name their methods."""
    return route.name


def install(app: FastAPI) -> None:
    """Give every error answer of ``app``'s document the error model."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            for operations in build()["paths"].values():
                for operation in operations.values():
                    for status, answer in operation["responses"].items():
                        if status[0] in "45" and not _typed(answer):
                            answer["content"] = {"application/json": {"schema": ERROR_REF}}
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]


def _typed(answer: dict[str, Any]) -> bool:
    """Whether a documented answer already names a schema."""
    return any(media.get("schema") for media in (answer.get("content") or {}).values())
