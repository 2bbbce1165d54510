"""API errors with stable codes, and the handlers that keep every error a small JSON answer.

Every error's body, whoever raised it (a route, FastAPI's validation or body parsing,
Starlette's routing), is ``{"detail": English, "message_zh": Chinese, "code": stable code,
...}`` (``detail`` stays a plain sentence for clients that show it as is). Validation errors never
echo the input (a password, a lone surrogate that cannot be encoded); unexpected exceptions
are one log line with the request id and a 500 that says only that id.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Mapping
from typing import Any, cast

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from .. import outage

log = logging.getLogger("server.api")
#: the API's database outages, each logged once per interval (not once per request)
OUTAGE = outage.OutageLog(log)


class ApiError(HTTPException):
    """An HTTP error with a stable ``code``, its English and Chinese messages and extra fields."""

    def __init__(self, status: int, code: str, en: str, zh: str,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(status, en, headers=headers)
        self.code, self.zh, self.extra = code, zh, extra


#: an error the framework raises itself (routing, body parsing): its code and Chinese words
FRAMEWORK = {400: ("bad_request", "请求无效"), 401: ("not_logged_in", "请先登录"),
             403: ("forbidden", "没有权限"), 404: ("not_found", "没有这个地址"),
             405: ("method_not_allowed", "此地址不接受该请求方法"), 413: ("too_large", "请求体过大"),
             415: ("unsupported_media_type", "不支持的内容类型")}


def framework_words(status: int) -> tuple[str, str]:
    """The ``code`` and ``message_zh`` of a framework's error of ``status``."""
    return FRAMEWORK.get(status, (f"http_{status}", f"请求未能完成（HTTP {status}）"))


def unknown_exercise(exercise_id: str) -> ApiError:
    """404 ``unknown_exercise``."""
    return ApiError(404, "unknown_exercise", f"no exercise {exercise_id!r}",
                    f"没有练习 {exercise_id!r}")


def unknown_submission(submission_id: int) -> ApiError:
    """404 ``unknown_submission`` (also for one the caller may not see)."""
    return ApiError(404, "unknown_submission", f"no submission {submission_id}",
                    f"没有提交 {submission_id}")


def rate_limited(retry_after: int, en: str = "too many requests; try again later",
                 zh: str = "请求过于频繁，请稍后再试") -> ApiError:
    """429 ``rate_limited`` with ``Retry-After``."""
    retry_after = max(1, int(retry_after))
    return ApiError(429, "rate_limited", en, zh, headers={"Retry-After": str(retry_after)},
                    retry_after=retry_after)


def json_body(status: int, body: dict[str, Any],
              headers: Mapping[str, str] | None = None) -> Response:
    """A JSON response that can encode anything (ASCII escapes: lone surrogates too)."""
    return Response(json.dumps(body, ensure_ascii=True, default=str), status_code=status,
                    media_type="application/json", headers=headers)


def database_unavailable(method: str, path: str, exc: BaseException) -> Response | None:
    """503 ``database_unavailable`` with ``Retry-After`` when ``exc`` says the database is
    locked, down or full (logged once per interval), else None."""
    if not outage.unavailable(exc):
        return None
    OUTAGE.failed(f"{method} {path[:200]}", exc)
    wait = outage.RETRY_AFTER_S
    return json_body(503, {"detail": f"the database is unavailable right now (locked, down or "
                                     f"full); try again in {wait} s",
                           "message_zh": f"数据库暂时不可用（被锁定、未运行或已满），请 {wait} 秒后重试",
                           "code": "database_unavailable", "retry_after": wait},
                     {"Retry-After": str(wait)})


def request_id(request: Request) -> str:
    """The id the guard middleware gave this request."""
    return cast(str, request.scope.get("state", {}).get("request_id", "-"))


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> Response:
        body = {"detail": exc.detail, "message_zh": exc.zh, "code": exc.code, **exc.extra}
        return json_body(exc.status_code, body, exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        code, zh = framework_words(exc.status_code)
        return json_body(exc.status_code, {"detail": exc.detail, "message_zh": zh, "code": code},
                         exc.headers)

    @app.exception_handler(DBAPIError)
    @app.exception_handler(PoolTimeout)
    async def database_error(request: Request, exc: Exception) -> Response:
        answer = database_unavailable(request.method, request.url.path, exc)
        if answer is None:
            raise exc  # a bug: the guard's one log line and 500
        return answer

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""),
                   "type": e.get("type", "")} for e in exc.errors()[:20]]
        return json_body(422, {"detail": errors, "code": "invalid_request",
                               "message_zh": "请求格式不正确"})


def internal_error(rid: str, method: str, path: str, exc: BaseException) -> Response:
    """Log ``exc`` as one line with the request id; the 500 answer that names only that id."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {'/'.join(where[0].filename.rsplit('/', 2)[-2:])}:{where[0].lineno}" if where else ""
    log.error("request %s %s %s failed: %s: %s%s", rid, method, path[:200], type(exc).__name__,
              str(exc)[:300].replace("\n", " "), at)
    return json_body(500, {"detail": f"internal error (request {rid})", "code": "internal",
                           "message_zh": f"服务器内部错误（请求 {rid}）", "request_id": rid})
