"""Accounts: creating users, checking passwords, and the admin named in the settings."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session, select

from .db import write_session
from .models import User
from .security import hash_password, verify_password
from .settings import Settings


def create_user(session: Session, username: str, password: str, role: str = "learner") -> User:
    """Add a user (the caller checks the name is free)."""
    user = User(username=username, password_hash=hash_password(password), role=role)
    session.add(user)
    session.flush()
    return user


def authenticate(session: Session, username: str, password: str) -> User | None:
    """The user with these credentials, or None."""
    user = session.exec(select(User).where(User.username == username)).first()
    if user is None or not verify_password(user.password_hash, password):
        return None
    return user


def ensure_admin(engine: Engine, settings: Settings) -> None:
    """Create or update the admin named by ``CJUDGE_ADMIN_USERNAME``/``_PASSWORD``, if set."""
    if not (settings.admin_username and settings.admin_password):
        return
    with write_session(engine) as session:
        user = session.exec(select(User).where(User.username == settings.admin_username)).first()
        if user is None:
            create_user(session, settings.admin_username, settings.admin_password, "admin")
        elif not verify_password(user.password_hash, settings.admin_password):
            user.password_hash = hash_password(settings.admin_password)
            user.role = "admin"
            session.add(user)
        elif user.role != "admin":
            user.role = "admin"
            session.add(user)
