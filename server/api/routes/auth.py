"""Routes for accounts: register, log in, log out, who am I, and the sign-up form's live check
of a password.

All but who-am-I are rate-limited per client IP (failed log-ins per account and IP, and slowed down per
account); passwords are checked and hashed in a bounded number of slots (503 with
``Retry-After`` when all are busy), never inside a database transaction.
"""

from __future__ import annotations

import asyncio
import hmac

from fastapi import APIRouter, Request, Response
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from ...accounts import (
    Busy,
    NameTaken,
    add_user,
    end_sessions,
    find_user,
    log_in,
    name_key,
    on_roster,
    password_feedback,
    reserved,
)
from ...db import write_session
from ...models import User, saved_id
from ...passwords import ADVICE, MIN_LENGTH, strength
from ...security import hash_password, make_token
from ...settings import Settings
from ..contract import SESSION_OPTIONAL
from ..deps import COOKIE, EngineDep, MaybeUserDep, SettingsDep, UserDep
from ..errors import ApiError, rate_limited
from ..schemas import (
    AdviceOut,
    AuthOut,
    Credentials,
    PasswordCheckIn,
    PasswordCheckOut,
    Registration,
    UserOut,
)

router = APIRouter(prefix="/api/auth", tags=["accounts"])
TAKEN = ApiError(409, "username_taken", "this username is taken", "该用户名已被使用")
BUSY = ApiError(503, "busy", "the server is busy; try again in a moment", "服务器繁忙，请稍后再试",
                headers={"Retry-After": str(Busy.retry_after)}, retry_after=Busy.retry_after)


def client_ip(request: Request) -> str:
    """The caller's address (the proxy's X-Forwarded-For when the proxy is trusted)."""
    return request.client.host if request.client else "-"


def _logged_in(user: User, settings: Settings, request: Request, response: Response) -> AuthOut:
    token = make_token(saved_id(user), user.identity, user.generation, settings.secret,
                       settings.token_ttl_s)
    secure = settings.cookie_secure or request.url.scheme == "https"
    response.set_cookie(COOKIE, token, max_age=settings.token_ttl_s, httponly=True,
                        samesite="lax", secure=secure, path="/")
    return AuthOut(user=UserOut.model_validate(user, from_attributes=True), token=token)


def _check_open(settings: Settings, body: Registration) -> None:
    if settings.registration == "closed":
        raise ApiError(403, "registration_closed", "sign-up is closed on this judge",
                       "本评测系统已关闭注册")
    if settings.registration == "invite":
        code = (body.invite or "").encode()
        if not any(hmac.compare_digest(code, c.get_secret_value().encode()) for c in settings.invite_codes):
            raise ApiError(403, "invite_required", "sign-up needs a valid invite code",
                           "注册需要有效的邀请码")
    if not on_roster(settings, body.username):
        raise ApiError(403, "not_on_roster", "this name is not on the course roster",
                       "该用户名不在课程名单中")


@router.post("/register", status_code=201, responses={
    403: {"description": "registration closed, invite needed, or not on the roster"},
    409: {"description": "username taken or reserved"}, 422: {"description": "weak password"},
    429: {"description": "too many sign-ups from this address"},
    503: {"description": "every hashing slot busy (see Retry-After)"}})
def register(body: Registration, request: Request, response: Response, settings: SettingsDep,
             engine: EngineDep) -> AuthOut:
    """Create a learner account and log it in."""
    _check_open(settings, body)
    wait = request.app.state.limits.hit(settings.signup_rate, "signup", client_ip(request))
    if wait:
        raise rate_limited(wait, "too many sign-ups from this address; try again later",
                           "此地址注册过于频繁，请稍后再试")
    if reserved(settings, body.username):
        raise ApiError(409, "username_reserved", "this username is reserved", "该用户名为保留名称")
    with Session(engine) as session:
        if find_user(session, body.username) is not None:
            raise TAKEN  # before hashing: a taken name costs no hash

    def judge_and_hash() -> tuple[str | None, str | None]:  # both cost CPU: a hashing slot
        problem = password_feedback(body.username, body.password, settings.min_password_score)
        return problem, None if problem else hash_password(body.password)

    try:
        problem, password_hash = request.app.state.hash_slots.run(judge_and_hash)
    except Busy:
        raise BUSY from None
    if problem or password_hash is None:
        raise ApiError(422, "weak_password", f"this password is too easy to guess: {problem}",
                       "密码太容易被猜到，请换一个更长、更少见的密码", feedback=problem)
    try:
        user = add_user(engine, body.username, password_hash)
    except NameTaken:
        raise TAKEN from None
    return _logged_in(user, settings, request, response)


@router.post("/password-check", responses={
    429: {"description": "too many checks from this address (see Retry-After)"},
    503: {"description": "every hashing slot busy (see Retry-After)"}})
def check_password(body: PasswordCheckIn, request: Request,
                   settings: SettingsDep) -> PasswordCheckOut:
    """What sign-up would say of this password (the same estimator and threshold), for the
    sign-up form to show while it is typed. The password is in the body, never logged."""
    wait = request.app.state.limits.hit(settings.password_check_rate, "password-check",
                                        client_ip(request))
    if wait:
        raise rate_limited(wait, "too many password checks from this address; try again later",
                           "此地址检查密码过于频繁，请稍后再试")
    try:  # zxcvbn costs CPU too: it shares sign-up's bounded slots
        verdict = request.app.state.hash_slots.run(strength, body.username, body.password,
                                                   settings.min_password_score)
    except Busy:
        raise BUSY from None
    return PasswordCheckOut(
        acceptable=verdict.acceptable, too_short=verdict.too_short, score=verdict.score,
        min_score=settings.min_password_score, min_length=MIN_LENGTH,
        warning=_advice(verdict.warning) if verdict.warning else None,
        suggestions=[_advice(text) for text in verdict.suggestions])


def _advice(text: str) -> AdviceOut:
    return AdviceOut(code=ADVICE.get(text), text=text)


@router.post("/login", responses={
    401: {"description": "bad credentials"},
    429: {"description": "too many attempts from this address (see Retry-After)"},
    503: {"description": "every hashing slot busy (see Retry-After)"}})
async def login(body: Credentials, request: Request, response: Response, settings: SettingsDep,
                engine: EngineDep) -> AuthOut:
    """Log in: a bearer token in the body, and the same token as an httpOnly cookie.

    Failed log-ins lock out only the address they come from (per account and address); those
    from every address together only slow the account's log-ins down, by at most
    ``CJUDGE_LOGIN_DELAY_MAX_S``, so nobody can lock another learner out by failing on purpose."""
    limits = request.app.state.limits
    account, ip = name_key(body.username), client_ip(request)
    wait = max(limits.hit(settings.login_rate_ip, "login", ip),
               limits.wait(settings.login_failures_pair, "login-failed", account, ip))
    if wait:
        raise rate_limited(wait, "too many log-in attempts; try again later",
                           "登录尝试过于频繁，请稍后再试")
    delay = limits.delay(settings.login_failures_account, settings.login_delay_max_s,
                         "login-failed", account)
    if delay:
        await asyncio.sleep(delay)  # on the event loop: a slowed log-in holds no thread

    try:  # a hash of older argon2 parameters is renewed here (see accounts.log_in)
        user = await run_in_threadpool(request.app.state.hash_slots.run, log_in, engine,
                                       body.username, body.password)
    except Busy:
        raise BUSY from None
    if user is None:
        limits.hit(settings.login_failures_pair, "login-failed", account, ip)
        limits.hit(settings.login_failures_account, "login-failed", account)
        raise ApiError(401, "bad_credentials", "wrong username or password", "用户名或密码错误")
    return _logged_in(user, settings, request, response)


@router.post("/logout", status_code=204, openapi_extra=SESSION_OPTIONAL)
async def logout(request: Request, response: Response, engine: EngineDep,
                 caller: MaybeUserDep) -> None:
    """End every session of the caller (if logged in) and forget the session cookie."""
    if caller is not None:
        def bump() -> None:
            with write_session(engine) as session:
                row = session.get(User, caller.id)
                if row is not None:
                    end_sessions(session, row)

        await run_in_threadpool(bump)
        request.app.state.caller_cache.forget(caller.id)
    response.delete_cookie(COOKIE, path="/")


@router.get("/me")
async def me(user: UserDep) -> UserOut:
    """The logged-in user."""
    return UserOut(id=user.id, username=user.username, role=user.role)
