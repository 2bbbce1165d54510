"""Accounts: sign-up rules, creating users, checking passwords, ending sessions, and the admin
named in the settings.

Password hashing (argon2, 100-200 ms of CPU) never runs inside a database transaction: a hash
is made first, in one of a bounded number of slots, and the insert that follows takes the write
lock for a moment only. A name taken meanwhile is the unique index's error, turned into 409.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from . import course, names
from .db import write_session
from .models import Profile, User
from .passwords import strength
from .security import DUMMY_HASH, hash_password, needs_rehash, verify_password
from .settings import Settings

T = TypeVar("T")
HASH_NICE = 10


class Busy(Exception):
    """Every hashing slot is taken; the caller should answer 503 with ``retry_after``."""

    retry_after = 1


class NameTaken(Exception):
    """The username (in any case) belongs to another account."""


class StartupRefused(Exception):
    """The settings ask for something the server must not do; the message says what to change."""


class HashSlots:
    """At most ``n`` password hashes or checks at once, on threads of their own at a lower
    CPU priority (nice 10: a sign-up flood takes CPU time from grading only when it is idle);
    a caller that finds every slot taken for ``wait_s`` gets ``Busy``."""

    def __init__(self, n: int, wait_s: float = 0.5) -> None:
        self.semaphore = threading.BoundedSemaphore(max(1, n))
        self.wait_s = wait_s
        self.pool = ThreadPoolExecutor(max(1, n), thread_name_prefix="hash",
                                       initializer=_lower_priority)

    def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a hashing thread (raise ``Busy`` if no slot frees up in time)."""
        if not self.semaphore.acquire(timeout=self.wait_s):
            raise Busy
        try:
            return self.pool.submit(fn, *args).result()
        finally:
            self.semaphore.release()

    def close(self) -> None:
        """Stop the hashing threads."""
        self.pool.shutdown(wait=False)


def _lower_priority() -> None:
    try:  # on Linux a thread's own nice value
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)
    except OSError:
        pass


def name_key(username: str) -> str:
    """The name as accounts are told apart: case does not matter."""
    return username.casefold()


def reserved(settings: Settings, username: str) -> bool:
    """Whether ``username`` is, or looks like (``adrnin``), a name kept for operators
    (``admin``, ``root``, the configured admin)."""
    kept = [*settings.reserved_names, *([settings.admin_username] if settings.admin_username
                                        else [])]
    return names.looks_like(username, kept) is not None


def display_name_refusal(session: Session, settings: Settings, user_id: int,
                         name: str) -> names.Refusal | None:
    """Why ``user_id`` may not appear as the normalised ``name`` (``names.normalise``), or
    None: its letters (``names.form_problem``), or "anonymous"; a staff title, reserved name
    or staff account's name it looks like; another learner's display name it looks like."""
    problem = names.form_problem(name)
    if problem is not None or names.looks_like(name, [course.ANONYMOUS]):
        return problem or names.BAD_FORM
    staff = session.exec(select(User.username).where(User.role != "learner")).all()
    kept = [*settings.reserved_names, *staff,
            *([settings.admin_username] if settings.admin_username else [])]
    if names.staff_like(name, kept):
        return names.RESERVED
    others = session.exec(select(Profile.display_name).where(
        Profile.user_id != user_id, col(Profile.display_name).is_not(None))).all()
    if names.looks_like(name, [other for other in others if other is not None]):
        return names.LOOKALIKE
    return None


def on_roster(settings: Settings, username: str) -> bool:
    """Whether the course roster (if one is configured) lists ``username``."""
    if settings.roster_file is None:
        return True
    lines = settings.roster_file.read_text(encoding="utf-8").splitlines()
    return name_key(username) in {name_key(line.strip()) for line in lines if line.strip()}


def password_feedback(username: str, password: str, min_score: int) -> str | None:
    """Why ``password`` is too easy to guess (zxcvbn's estimate), or None if it is strong enough."""
    verdict = strength(username, password, min_score)
    return None if verdict.acceptable else verdict.reason()


def find_user(session: Session, username: str) -> User | None:
    """The account named ``username`` in any case."""
    return session.exec(select(User).where(User.username_key == name_key(username))).first()


def add_user(engine: Engine, username: str, password_hash: str, role: str = "learner") -> User:
    """Insert an account whose password is already hashed; ``NameTaken`` if the name is."""
    try:
        with write_session(engine) as session:
            user = User(username=username, username_key=name_key(username),
                        password_hash=password_hash, role=role)
            session.add(user)
            session.flush()
            session.expunge(user)
            return user
    except IntegrityError:
        raise NameTaken(username) from None


def create_user(session: Session, username: str, password: str, role: str = "learner") -> User:
    """Add a user inside ``session`` (hashes here: for scripts and tests, not for requests)."""
    user = User(username=username, username_key=name_key(username),
                password_hash=hash_password(password), role=role)
    session.add(user)
    session.flush()
    return user


def authenticate(session: Session, username: str, password: str) -> User | None:
    """The user with these credentials, or None; an unknown name costs a hash check as well."""
    user = find_user(session, username)
    if user is None:
        verify_password(DUMMY_HASH, password)
        return None
    return user if verify_password(user.password_hash, password) else None


def log_in(engine: Engine, username: str, password: str) -> User | None:
    """The user with these credentials (detached), or None. A hash made with other argon2
    parameters than today's is replaced by a new one of the same password (hashed outside any
    transaction; written only if nobody changed the password meanwhile); sessions go on."""
    with Session(engine) as session:
        user = authenticate(session, username, password)
        if user is None:
            return None
        session.expunge(user)
    if needs_rehash(user.password_hash):
        new_hash = hash_password(password)
        with write_session(engine) as session:
            row = session.get(User, user.id)
            if row is not None and row.password_hash == user.password_hash:
                row.password_hash = user.password_hash = new_hash
    return user


def end_sessions(session: Session, user: User) -> None:
    """Make every token issued to ``user`` so far invalid."""
    user.generation += 1
    session.add(user)


def ensure_admin(engine: Engine, settings: Settings) -> None:
    """Create or update the admin named by ``CJUDGE_ADMIN_USERNAME``/``_PASSWORD``, if set.

    An existing account of that name that is not an admin is never promoted: ``StartupRefused``.
    A changed password ends the admin's sessions.
    """
    name = settings.admin_username
    password = settings.admin_password.get_secret_value() if settings.admin_password else ""
    if not (name and password):
        return
    with Session(engine) as session:
        user = find_user(session, name)
    if user is not None and user.role != "admin":
        raise StartupRefused(
            f"CJUDGE_ADMIN_USERNAME={name!r} names an existing learner account (id {user.id}, "
            f"{user.username!r}); the judge never makes a learner an admin. Choose another admin "
            "name, or remove that account from the database first.")
    if user is None:
        try:
            add_user(engine, name, hash_password(password), role="admin")
        except NameTaken:
            ensure_admin(engine, settings)  # created meanwhile (another process): check it
        return
    if verify_password(user.password_hash, password):
        return
    new_hash = hash_password(password)
    with write_session(engine) as session:
        row = session.get_one(User, user.id)
        row.password_hash = new_hash
        end_sessions(session, row)
