"""FastAPI dependencies: settings, database sessions and the current user."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from sqlalchemy import Engine
from sqlmodel import Session

from ..models import User
from ..security import read_token
from ..settings import Settings

COOKIE = "cjudge_token"


def get_settings(request: Request) -> Settings:
    """The app's settings."""
    return request.app.state.settings


def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    return request.app.state.engine


def get_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    """A read session for one request."""
    with Session(engine) as session:
        yield session


def optional_user(request: Request, settings: Annotated[Settings, Depends(get_settings)],
                  session: Annotated[Session, Depends(get_session)]) -> User | None:
    """The user named by a bearer token or the session cookie, if any."""
    header = request.headers.get("authorization", "")
    token = header[7:] if header.lower().startswith("bearer ") else request.cookies.get(COOKIE)
    user_id = read_token(token, settings.secret) if token else None
    return session.get(User, user_id) if user_id is not None else None


def current_user(user: Annotated[User | None, Depends(optional_user)]) -> User:
    """The logged-in user; 401 otherwise."""
    if user is None:
        raise HTTPException(401, "log in first", headers={"WWW-Authenticate": "Bearer"})
    return user


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
SessionDep = Annotated[Session, Depends(get_session)]
UserDep = Annotated[User, Depends(current_user)]
