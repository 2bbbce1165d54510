"""Serving the web app's built files (``web/dist``) at ``/``, or a note when it is not built."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>collective judge</title>
<h1>collective judge</h1><p>The web app is not built (no <code>web/dist</code>).
The API is served: see <a href="/docs">/docs</a>.</p>"""


class AppFiles(StaticFiles):
    """Static files whose unknown paths fall back to ``index.html`` (client-side routes)."""

    async def get_response(self, path: str, scope: Scope):
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404 or path.startswith("api/"):
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
