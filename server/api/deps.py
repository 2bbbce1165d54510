"""FastAPI dependencies: settings, database sessions and the caller.

The caller is resolved without the thread pool when possible (a token names a user id, and
users are cached for a few seconds): polling clients are the bulk of the traffic.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ..models import User
from ..security import read_token
from ..settings import Settings

COOKIE = "cjudge_token"
CALLER_TTL_S = 10.0


@dataclass(frozen=True)
class Caller:
    """Who is calling: enough of the user to decide what they may see."""

    id: int
    username: str
    role: str

    @property
    def admin(self) -> bool:
        """Whether the caller may see everything."""
        return self.role == "admin"


class CallerCache:
    """Users by id for ``CALLER_TTL_S`` seconds (a role change shows up within that time)."""

    def __init__(self) -> None:
        self.items: dict[int, tuple[float, Caller]] = {}

    def get(self, user_id: int) -> Caller | None:
        """The cached caller, if fresh."""
        item = self.items.get(user_id)
        return item[1] if item is not None and item[0] > time.monotonic() else None

    def put(self, caller: Caller) -> None:
        """Remember ``caller``."""
        if len(self.items) > 10_000:
            self.items.clear()
        self.items[caller.id] = (time.monotonic() + CALLER_TTL_S, caller)


async def get_settings(request: Request) -> Settings:
    """The app's settings."""
    return request.app.state.settings


async def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    return request.app.state.engine


def get_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    """A read session for one request."""
    with Session(engine) as session:
        yield session


def _load_caller(engine: Engine, user_id: int) -> Caller | None:
    with Session(engine) as session:
        user = session.get(User, user_id)
        return None if user is None else Caller(user.id, user.username, user.role)


def token_user_id(authorization: str, cookie_token: str | None, secret: str) -> int | None:
    """The user id in the bearer token (``authorization`` header) or else the cookie's token."""
    token = authorization[7:] if authorization.lower().startswith("bearer ") else cookie_token
    return read_token(token, secret) if token else None


async def optional_user(request: Request, settings: Annotated[Settings, Depends(get_settings)],
                        engine: Annotated[Engine, Depends(get_engine)]) -> Caller | None:
    """The user named by a bearer token or the session cookie, if any."""
    user_id = token_user_id(request.headers.get("authorization", ""),
                            request.cookies.get(COOKIE), settings.secret)
    if user_id is None:
        return None
    cache: CallerCache = request.app.state.caller_cache
    caller = cache.get(user_id)
    if caller is None:
        caller = await run_in_threadpool(_load_caller, engine, user_id)
        if caller is not None:
            cache.put(caller)
    return caller


async def current_user(user: Annotated[Caller | None, Depends(optional_user)]) -> Caller:
    """The logged-in user; 401 otherwise."""
    if user is None:
        raise HTTPException(401, "log in first", headers={"WWW-Authenticate": "Bearer"})
    return user


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
SessionDep = Annotated[Session, Depends(get_session)]
UserDep = Annotated[Caller, Depends(current_user)]
