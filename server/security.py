"""Password hashing (argon2) and signed, expiring bearer tokens (HMAC-SHA256)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    """An argon2id hash of ``password``."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def make_token(user_id: int, secret: str, ttl_s: int) -> str:
    """A token naming ``user_id`` that is valid for ``ttl_s`` seconds."""
    payload = f"{user_id}.{int(time.time()) + ttl_s}"
    return f"{payload}.{_sign(payload, secret)}"


def read_token(token: str, secret: str) -> int | None:
    """The user id in a valid, unexpired ``token``, else None."""
    payload, _, signature = token.rpartition(".")
    if not payload or not hmac.compare_digest(signature, _sign(payload, secret)):
        return None
    user_id, _, expires = payload.partition(".")
    if not (user_id.isdigit() and expires.isdigit()) or int(expires) < time.time():
        return None
    return int(user_id)


def _sign(payload: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
