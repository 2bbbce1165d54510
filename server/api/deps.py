"""FastAPI dependencies: settings, database sessions and the caller.

The caller is resolved without the thread pool when possible (a token names a user id, and
users are cached for a few seconds): polling clients are the bulk of the traffic.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, cast

from cachetools import TTLCache
from fastapi import Depends, Request
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from ..access import may_see
from ..models import ADMIN, STAFF_ROLES, Exercise, User, saved_id
from ..security import TokenClaims, read_token
from ..settings import Settings
from .errors import ApiError, unknown_exercise

COOKIE = "cjudge_token"
CALLER_TTL_S = 10.0
#: callers kept at most: each is an id, a name of at most 32 characters, a role, a 32-character
#: identity and a number, a few hundred bytes in all, so the cache stays within a few MiB
MAX_CALLERS = 10_000


@dataclass(frozen=True)
class Caller:
    """Who is calling: enough of the user to decide what they may see."""

    id: int
    username: str
    role: str
    identity: str = ""
    generation: int = 0

    def holds(self, claims: TokenClaims) -> bool:
        """Whether a token with ``claims`` is one of this account's current sessions."""
        return (claims.user_id == self.id and claims.identity == self.identity
                and claims.generation == self.generation)

    @property
    def staff(self) -> bool:
        """Whether the caller is staff (the admin or the course's staff), who may see
        everything."""
        return self.role in STAFF_ROLES

    @property
    def admin(self) -> bool:
        """Whether the caller is the admin, who also names the staff."""
        return self.role == ADMIN

    def may_see(self, owner_id: int) -> bool:
        """Whether the caller may see a submission of ``owner_id``'s (``server.access``)."""
        return may_see(owner_id, self.id, self.staff)


class CallerCache:
    """Users by id for ``CALLER_TTL_S`` seconds (a role change shows up within that time), at
    most ``MAX_CALLERS`` of them, the least recently used going first when full (cachetools'
    ``TTLCache``; used on the event loop only)."""

    def __init__(self) -> None:
        self.items: TTLCache[int, Caller] = TTLCache(maxsize=MAX_CALLERS, ttl=CALLER_TTL_S)

    def get(self, user_id: int) -> Caller | None:
        """The cached caller, if fresh."""
        return self.items.get(user_id)

    def put(self, caller: Caller) -> None:
        """Remember ``caller``."""
        self.items[caller.id] = caller

    def forget(self, user_id: int) -> None:
        """Drop ``user_id`` (its sessions or role just changed)."""
        self.items.pop(user_id, None)


async def get_settings(request: Request) -> Settings:
    """The app's settings."""
    return cast(Settings, request.app.state.settings)


async def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    return cast(Engine, request.app.state.engine)


def get_session(engine: Annotated[Engine, Depends(get_engine)]) -> Iterator[Session]:
    """A read session for one request."""
    with Session(engine) as session:
        yield session


def _load_caller(engine: Engine, user_id: int) -> Caller | None:
    with Session(engine) as session:
        user = session.get(User, user_id)
        return None if user is None else Caller(saved_id(user), user.username, user.role,
                                                user.identity, user.generation)


#: the two ways to send a session, as the OpenAPI document declares them (``/docs``' Authorize)
BEARER = HTTPBearer(auto_error=False, scheme_name="bearer",
                    description="the `token` answered by /api/auth/register or /api/auth/login")
SESSION_COOKIE = APIKeyCookie(name=COOKIE, auto_error=False, scheme_name="cookie",
                              description="the httpOnly cookie that log-in sets (the web app's)")


def session_claims(bearer: HTTPAuthorizationCredentials | None, cookie: str | None,
                   secret: str) -> TokenClaims | None:
    """The claims of the session a request sends: its bearer token, or else its cookie's."""
    token = bearer.credentials if bearer is not None else cookie
    return read_token(token, secret) if token else None


async def request_claims(connection: HTTPConnection, secret: str) -> TokenClaims | None:
    """``session_claims`` read from ``connection`` by the same two schemes the routes declare
    (for code that runs before the routes' dependencies: the fast path)."""
    return session_claims(await BEARER(connection), await SESSION_COOKIE(connection), secret)


def cached_caller(cache: CallerCache, claims: TokenClaims | None) -> Caller | None:
    """The cached caller whose current session ``claims`` names (None: not cached, or stale)."""
    if claims is None:
        return None
    caller = cache.get(claims.user_id)
    return caller if caller is not None and caller.holds(claims) else None


async def optional_user(request: Request, settings: Annotated[Settings, Depends(get_settings)],
                        engine: Annotated[Engine, Depends(get_engine)],
                        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
                        cookie: Annotated[str | None, Depends(SESSION_COOKIE)]) -> Caller | None:
    """The user whose current session a bearer token or the session cookie names, if any."""
    claims = session_claims(bearer, cookie, settings.secret)
    cache: CallerCache = request.app.state.caller_cache
    caller = cached_caller(cache, claims)
    if caller is not None or claims is None:
        return caller
    caller = await run_in_threadpool(_load_caller, engine, claims.user_id)
    if caller is not None:
        cache.put(caller)
    return caller if caller is not None and caller.holds(claims) else None


async def current_user(user: Annotated[Caller | None, Depends(optional_user)]) -> Caller:
    """The logged-in user; 401 otherwise."""
    if user is None:
        raise ApiError(401, "not_logged_in", "log in first", "请先登录",
                       headers={"WWW-Authenticate": "Bearer"})
    return user


async def staff_user(user: Annotated[Caller, Depends(current_user)]) -> Caller:
    """The logged-in user if staff; 403 otherwise."""
    if not user.staff:
        raise ApiError(403, "staff_only", "staff only", "仅限教师和助教")
    return user


async def admin_user(user: Annotated[Caller, Depends(current_user)]) -> Caller:
    """The logged-in user if the admin; 403 otherwise."""
    if not user.admin:
        raise ApiError(403, "admin_only", "the admin only", "仅限管理员")
    return user


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
SessionDep = Annotated[Session, Depends(get_session)]
UserDep = Annotated[Caller, Depends(current_user)]
StaffDep = Annotated[Caller, Depends(staff_user)]
AdminDep = Annotated[Caller, Depends(admin_user)]
MaybeUserDep = Annotated[Caller | None, Depends(optional_user)]


def exercise_row(session: Session, exercise_id: str) -> Exercise:
    """The exercise's row, or 404 ``unknown_exercise``."""
    row = session.get(Exercise, exercise_id)
    if row is None:
        raise unknown_exercise(exercise_id)
    return row
