"""Serving the web app's built files (``web/dist``) at ``/``, or a note when it is not built."""

from __future__ import annotations

import mimetypes
import stat
from pathlib import Path

import anyio
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

#: precompressed copies the web build writes beside a file, best first: (encoding, suffix)
PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))

NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>collective judge</title>
<h1>collective judge</h1><p>The web app is not built (no <code>web/dist</code>).
The API is served: see <a href="/docs">/docs</a>.</p>"""


def accepted_encodings(scope: Scope) -> set[str]:
    """The content codings the request accepts (``q=0`` ones left out)."""
    accepted = set()
    for part in Headers(scope=scope).get("accept-encoding", "").lower().split(","):
        name, _, params = part.strip().partition(";")
        if name and params.replace(" ", "") not in ("q=0", "q=0.0"):
            accepted.add(name)
    return accepted


class AppFiles(StaticFiles):
    """Static files whose unknown paths fall back to ``index.html`` (client-side routes), sent
    from the build's precompressed copy (``name.br``, ``name.gz``) when the client accepts it."""

    async def precompressed(self, path: str, scope: Scope) -> Response | None:
        """The precompressed copy of ``path`` as a response, if one exists and is accepted."""
        if scope["method"] not in ("GET", "HEAD"):
            return None
        accepted = accepted_encodings(scope)
        for encoding, suffix in PRECOMPRESSED:
            if encoding not in accepted:
                continue
            full, found = await anyio.to_thread.run_sync(self.lookup_path, path + suffix)
            if found is None or not stat.S_ISREG(found.st_mode):
                continue
            response = self.file_response(full, found, scope)
            response.headers["content-type"] = (mimetypes.guess_type(path)[0]
                                                or "application/octet-stream")
            if response.status_code == 200:
                response.headers["content-encoding"] = encoding
            response.headers["vary"] = "Accept-Encoding"
            return response
        return None

    async def get_response(self, path: str, scope: Scope) -> Response:
        compressed = await self.precompressed(path, scope)
        if compressed is not None:
            return compressed
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404:
                raise
            return await super().get_response("index.html", scope)


def mount_web(app: FastAPI, dist: Path) -> None:
    """Serve ``dist`` at ``/`` if it holds a built app, else a page saying it is not built."""
    if (dist / "index.html").is_file():
        app.mount("/", AppFiles(directory=dist, html=True), name="web")
        return

    @app.get("/", include_in_schema=False)
    def not_built() -> HTMLResponse:
        return HTMLResponse(NOT_BUILT)
