"""Password hashing (argon2) and signed, expiring, revocable bearer tokens (HMAC-SHA256).

A token names the account's id, its random identity and its session generation: bumping the
generation (logout, a password or role change) ends every session, and a token from before a
database reset names an identity that no longer exists.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
#: checked against when a name is unknown, so that unknown names take as long as known ones
DUMMY_HASH = _hasher.hash("not a password of anyone: only here to spend the same time")
_PAYLOAD = re.compile(r"^(\d{1,18})\.([0-9a-f]{32})\.(\d{1,9})\.(\d{1,12})$")


@dataclass(frozen=True)
class TokenClaims:
    """What a valid token says: the account id, identity and session generation."""

    user_id: int
    identity: str
    generation: int


def hash_password(password: str) -> str:
    """An argon2id hash of ``password``."""
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    """Whether ``password`` matches ``password_hash``."""
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """Whether ``password_hash`` was made with other parameters than the hasher's now (a
    newer argon2-cffi's defaults, or ours changed): then it is hashed anew at the next log-in."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return False


def make_token(user_id: int, identity: str, generation: int, secret: str, ttl_s: int) -> str:
    """A token for this account and session generation, valid for ``ttl_s`` seconds."""
    payload = f"{user_id}.{identity}.{generation}.{int(time.time()) + ttl_s}"
    return f"{payload}.{_sign(payload, secret)}"


def read_token(token: str, secret: str) -> TokenClaims | None:
    """The claims of a well-signed, unexpired ``token``, else None."""
    payload, _, signature = token.rpartition(".")
    if not payload or not hmac.compare_digest(signature.encode("utf-8", "surrogatepass"),
                                             _sign(payload, secret).encode()):
        return None
    match = _PAYLOAD.match(payload)
    if match is None or int(match.group(4)) < time.time():
        return None
    return TokenClaims(int(match.group(1)), match.group(2), int(match.group(3)))


def _sign(payload: str, secret: str) -> str:
    digest = hmac.new(secret.encode(), payload.encode("utf-8", "surrogatepass"),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
