"""What answers a request no route served, before the web app mounted at ``/`` may: every
``/api`` path, and any path a route serves with other methods (``/healthz``, ``/docs``). A wrong
method is 405 with ``Allow`` naming every method the path takes; an unknown ``/api`` path is
404. Both in the error model, so the web app never answers for the API."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

from .errors import ApiError

#: the methods a path is asked whether it takes (a route's own ``methods`` may be hidden inside
#: an included router, so each is tried against the routes as a request would be)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
PREFIX = "/api"


class Unrouted(BaseRoute):
    """A route after every API route and before the web app: it takes what they did not."""

    def __init__(self, routes: list[BaseRoute]) -> None:
        self.routes = routes  # the app's, this one among them: it asks those before it

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        path = scope["path"]
        api = path == PREFIX or path.startswith(PREFIX + "/")
        return (Match.FULL if api or self._taken(scope, Match.PARTIAL) else Match.NONE), {}

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        allowed = [m for m in METHODS if self._taken({**scope, "method": m}, Match.FULL)]
        if allowed:
            allow = ", ".join(allowed)
            raise ApiError(405, "method_not_allowed", f"this path takes only {allow}",
                           f"此地址只接受 {allow} 请求", headers={"Allow": allow})
        raise ApiError(404, "not_found", "no such API path", "没有这个 API 地址")

    def _taken(self, scope: Scope, match: Match) -> bool:
        """Whether a route before this one matches ``scope`` as ``match`` says."""
        for route in self.routes:
            if route is self:
                return False
            if route.matches(scope)[0] == match:
                return True
        return False


def install(app: FastAPI) -> None:
    """Add :class:`Unrouted` after ``app``'s routes so far (mount the web app after it)."""
    app.router.routes.append(Unrouted(app.router.routes))
