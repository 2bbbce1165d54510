"""Routes for accounts: register, log in, log out, who am I."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response
from sqlmodel import select

from ..accounts import authenticate, create_user
from ..db import write_session
from ..models import User
from ..security import make_token
from ..settings import Settings
from .deps import COOKIE, EngineDep, SessionDep, SettingsDep, UserDep
from .schemas import AuthOut, Credentials, UserOut

router = APIRouter(prefix="/api/auth", tags=["accounts"])


def _logged_in(user: User, settings: Settings, response: Response) -> AuthOut:
    token = make_token(user.id, settings.secret, settings.token_ttl_s)
    response.set_cookie(COOKIE, token, max_age=settings.token_ttl_s, httponly=True,
                        samesite="lax", secure=settings.cookie_secure, path="/")
    return AuthOut(user=UserOut.model_validate(user, from_attributes=True), token=token)


@router.post("/register", status_code=201)
def register(body: Credentials, response: Response, settings: SettingsDep,
             engine: EngineDep) -> AuthOut:
    """Create a learner account and log it in."""
    with write_session(engine) as session:
        if session.exec(select(User.id).where(User.username == body.username)).first():
            raise HTTPException(409, "this username is taken")
        user = create_user(session, body.username, body.password)
        return _logged_in(user, settings, response)


@router.post("/login")
def login(body: Credentials, response: Response, settings: SettingsDep,
          session: SessionDep) -> AuthOut:
    """Log in: a bearer token in the body, and the same token as an httpOnly cookie."""
    user = authenticate(session, body.username, body.password)
    if user is None:
        raise HTTPException(401, "wrong username or password")
    return _logged_in(user, settings, response)


@router.post("/logout", status_code=204)
def logout(response: Response) -> None:
    """Forget the session cookie."""
    response.delete_cookie(COOKIE, path="/")


@router.get("/me")
async def me(user: UserDep) -> UserOut:
    """The logged-in user."""
    return UserOut(id=user.id, username=user.username, role=user.role)
