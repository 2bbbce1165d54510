"""Running a course on the judge: health, leaderboards, progress and quotas (their routers)."""

from __future__ import annotations

from fastapi import FastAPI

from . import health


def install(app: FastAPI) -> None:
    """Add the course routes to ``app``."""
    for module in (health,):
        app.include_router(module.router)
