"""The FastAPI application: start-up (migrate, sync exercises, start workers) and routes."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from sqlalchemy import Engine

from cjudge.exercise.exercises import CHAPTER, load_exercises

from ..accounts import HashSlots, StartupRefused, ensure_admin
from ..db import make_engine, migrate
from ..exercise_sync import sync_exercises
from ..limiter import RateLimits
from ..settings import Settings, private_dir, settings_env
from ..supervisor import Supervisor, report_running
from . import contract, errors, unrouted
from .cache import DoneCache
from .deps import CallerCache
from .middleware import Guard
from .nul import RefuseNul
from .routes import auth, events, exercises, submissions
from .routes.course import install as install_course_routes
from .routes.fastpath import FinishedSubmissions
from .routes.web import mount_web

log = logging.getLogger("server")


def create_app(settings: Settings | None = None, embedded_workers: bool = True) -> FastAPI:
    """The app; on start it migrates, syncs exercises and starts ``settings.workers`` workers."""
    settings = settings or Settings()
    app = FastAPIOffline(title="collective judge", version="0.1.0",
                         lifespan=_lifespan(settings, embedded_workers),
                         description="Online judge for collective-communication exercises.",
                         responses=contract.RESPONSES,
                         generate_unique_id_function=contract.operation_id)
    _install_routes(app, settings)
    _install_middleware(app, settings)
    return app


def _lifespan(settings: Settings,
              embedded_workers: bool) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: start-up before it serves; workers stopped and the engine closed after."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = _open_database(settings)
        _sync_catalog(app, engine, settings)
        _ensure_admin_or_refuse(engine, settings)
        _ = settings.secret  # create it now, not in the first request
        report_running(engine)  # left by the last run: claimed again, before new work
        supervisor = Supervisor(settings.workers if embedded_workers else 0,
                                settings_env(settings))
        supervisor.start()
        _fill_state(app, settings, engine, supervisor)
        try:
            yield
        finally:
            supervisor.stop()
            if hasattr(app.state, "watches"):
                app.state.watches.close()
            app.state.hash_slots.close()
            engine.dispose()

    return lifespan


def _open_database(settings: Settings) -> Engine:
    """Migrate the database (a private data directory for SQLite) and open its engine."""
    if not settings.database_url:
        private_dir(settings.data_dir)
    migrate(settings.url)
    return make_engine(settings.url)


def _sync_catalog(app: FastAPI, engine: Engine, settings: Settings) -> None:
    """Sync the exercises into the database and keep where each is listed in ``app.state``."""
    loaded = load_exercises(settings.exercises_dir)
    sync_exercises(engine, loaded)
    app.state.catalog = {ex.id: {"track": ex.track, "order": ex.order,  # where it is listed
                                 "prerequisites": list(ex.prerequisites),
                                 "difficulty": ex.difficulty,
                                 "chapter": [CHAPTER[c][0] for c in ex.chapter]}
                         for ex in loaded.values()}


def _ensure_admin_or_refuse(engine: Engine, settings: Settings) -> None:
    """Ensure the admin account; a refused start-up is logged and the engine closed."""
    try:
        ensure_admin(engine, settings)
    except StartupRefused as refused:
        log.error("cannot start: %s", refused)
        engine.dispose()
        raise


def _fill_state(app: FastAPI, settings: Settings, engine: Engine, supervisor: Supervisor) -> None:
    """Put the settings, engine, supervisor, caches and limits the routes use in ``app.state``."""
    app.state.settings, app.state.engine, app.state.supervisor = settings, engine, supervisor
    app.state.done_cache = DoneCache(max_bytes=settings.done_cache_bytes)
    app.state.events_cache = DoneCache(max_bytes=settings.events_cache_bytes)
    app.state.caller_cache = CallerCache()
    app.state.limits, app.state.hash_slots = RateLimits(), HashSlots(settings.hash_concurrency)
    app.state.streams = {}  # user id -> event streams open


def _install_routes(app: FastAPI, settings: Settings) -> None:
    """Install the error handlers, the contract, every route and the web app, in that order."""
    errors.install(app)
    contract.install(app)
    for module in (auth, exercises, submissions, events):
        app.include_router(module.router)

    install_course_routes(app)  # /healthz, leaderboards, progress, quotas
    unrouted.install(app)  # after every route: what they do not take is not the web app's
    mount_web(app, settings.web_dist)


def _install_middleware(app: FastAPI, settings: Settings) -> None:
    """Add the middleware, innermost first: finished submissions' fast path, NUL refusal, Guard."""
    app.add_middleware(FinishedSubmissions, state=app.state)
    app.add_middleware(RefuseNul)
    app.add_middleware(Guard, max_body=6 * settings.max_code_bytes + 4096,  # the outermost
                       allowed_hosts=settings.allowed_hosts)
