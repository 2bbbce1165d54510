"""Server settings from the environment (prefix ``CJUDGE_``), with a persisted generated secret.

pydantic-settings reads them: secrets are ``SecretStr`` (never in a repr, a log or an error),
choices are ``Literal`` (a typo stops the start with the choices named), and lists are lists,
written in the environment as before: comma-separated (``CJUDGE_ALLOWED_HOSTS=a,b``) or as a
JSON list.
"""

from __future__ import annotations

import json
import os
import secrets
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BeforeValidator, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from cjudge.contract.protocol import RESULT_BYTES
from cjudge.exercise.exercises import default_root

REPO_ROOT = Path(__file__).resolve().parents[1]
MIN_SECRET_BYTES = 32


def _names(value: Any) -> Any:
    """A comma-separated string (or a JSON list, as text) as a list; blank entries dropped."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


#: a list setting, given in the environment comma-separated (or as a JSON list)
Names = Annotated[list[str], NoDecode, BeforeValidator(_names)]
Secrets = Annotated[list[SecretStr], NoDecode, BeforeValidator(_names)]


class Settings(BaseSettings):
    """Everything the server and its workers can be told; every field is ``CJUDGE_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="CJUDGE_", extra="ignore")

    data_dir: Path = Path("data")  # the SQLite database and the generated secret live here
    # a SQLAlchemy URL (postgresql://…); unset: SQLite in the data directory
    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("CJUDGE_DATABASE_URL", "DATABASE_URL")
    )
    secret_key: SecretStr | None = None  # signs log-in tokens; unset: generated once in the data directory
    exercises_dir: Path = default_root()  # the exercise folders the judge serves and grades
    web_dist: Path = REPO_ROOT / "web" / "dist"  # the built web app (`cd web && npm run build`)

    # accounts
    admin_username: str | None = None  # an admin account created at start, with admin_password
    admin_password: SecretStr | None = None  # its password (the strength rule applies)
    token_ttl_s: int = 7 * 24 * 3600  # how long a log-in lasts, in seconds
    cookie_secure: bool = False  # else Secure only when the (trusted) proxy says HTTPS
    registration: Literal["open", "invite", "closed"] = "open"  # who may sign up
    invite_codes: Secrets = []  # codes that open sign-up when registration=invite
    roster_file: Path | None = None  # if set, only the names in it (one a line) may sign up
    # names nobody may sign up with
    reserved_names: Names = ["admin", "administrator", "root", "superuser", "sysadmin", "system",
                             "staff", "support", "judge"]
    min_password_score: int = 2  # zxcvbn's 0-4
    # password hashes at once (half the cores: grading keeps the rest); more get 503
    hash_concurrency: int = Field(default_factory=lambda: max(1, (os.cpu_count() or 2) // 2))
    # per client IP, in the `limits` library's notation ("N/minute;M/hour")
    signup_rate: str = "10/minute;100/hour"  # a class behind one NAT: raise, or use invites
    # live password checks of the sign-up form (one per pause in typing) per client IP
    password_check_rate: str = "120/minute;2000/hour"
    login_rate_ip: str = "60/minute;1000/hour"  # log-in attempts per client IP
    # failed log-ins per (account, address): past these that address may not try the account
    login_failures_pair: str = "5/minute;20/hour;50/day"
    # failed log-ins per account from every address: past half of a window each attempt waits,
    # doubling up to login_delay_max_s; slowed, never refused (no locking a victim out)
    login_failures_account: str = "20/minute;200/hour"
    login_delay_max_s: float = 2.0  # the longest wait a slowed log-in gets
    submit_rate_ip: str = "60/minute"  # submissions per client IP
    max_pending_per_ip: int = 30  # submissions queued at once from one client IP

    # HTTP
    allowed_hosts: Names = ["localhost", "127.0.0.1", "[::1]"]  # Host values (no port); "*": any
    trusted_proxies: Names = []  # addresses whose X-Forwarded-For/-Proto are believed
    max_connections: int = 2048  # open connections (also bounded by the open-file limit)
    idle_timeout_s: float = 5.0  # keep-alive between requests
    head_timeout_s: float = 10.0  # a request's line, headers and body must arrive within this
    max_header_bytes: int = 64 * 1024  # a request's headers, all together
    max_streams_per_user: int = 4  # event streams open at once
    stream_max_s: float = 300.0  # a stream's lifetime (clients reconnect with Last-Event-ID)
    verdict_limit_bytes: int = 1 << 20  # a stored verdict's JSON; traces are cut to fit
    done_cache_bytes: int = 64 << 20  # finished submissions' JSON kept in memory
    events_cache_bytes: int = 32 << 20  # finished submissions' event streams, rendered

    # bad input and fairness
    max_code_bytes: int = 64 * 1024  # a submission's source
    rate_per_minute: int = 12  # submissions per user per minute
    max_queued_per_user: int = 5  # a user's submissions waiting at once
    max_queued_total: int = 500  # submissions waiting at once, all users; more get 503

    # queue and workers
    workers: int = 2  # worker processes, each judging one submission at a time
    lease_s: float = 20.0  # a claimed job's lease: a worker that stops renewing it loses the job
    poll_s: float = 0.05  # an idle worker's first wait; it doubles while the queue stays empty
    idle_poll_max_s: float = 0.2  # ... up to this
    max_attempts: int = 3  # claims of one job before it ends judge_error

    # sandbox
    sandbox: Literal["bwrap", "docker", "none"] = "bwrap"  # none: a trusted single user only
    pool_size: int = 2  # warm sandboxes per worker
    sandbox_fork: bool = True  # bwrap: sandboxes forked from one that imported torch once
    memory_limit_mb: int = 1536  # a sandbox's memory, all its ranks together
    pids_limit: int = 1024  # processes and threads in a sandbox
    tmpfs_mb: int = 64  # a sandbox's writable /tmp
    cpu_quota: float = 0.0  # cores; 0 means all cores
    stdout_limit_bytes: int = 1 << 20  # what a submission may print, all ranks together
    result_limit_bytes: int = RESULT_BYTES  # a job's records; its results' sizes come on top
    ready_timeout_s: float = 60.0  # how long a new sandbox may take to be ready
    runner_python: str | None = None  # the interpreter sandboxes run (PREFIX/bin/python)
    sandbox_start_attempts: int = 3  # failed starts in a row before submissions end judge_error
    sandbox_backoff_max_s: float = 30.0  # longest wait between two failed sandbox starts
    # health: a queued job nobody claimed this long (while no job was claimed) is a stall
    stall_s: float = 60.0
    heartbeat_s: float = 5.0  # how often workers report their sandboxes' health
    # docker sandbox (CJUDGE_SANDBOX=docker): the engine's socket and the runner image
    docker_socket: Path = Path("/var/run/docker.sock")
    docker_image: str = "cjudge/runner:latest"  # the runner image (docker/build-images.sh builds it)

    @field_validator("secret_key")
    @classmethod
    def _strong_secret(cls, secret: SecretStr | None) -> SecretStr | None:
        value = secret.get_secret_value() if secret is not None else ""
        if value and (len(value.encode()) < MIN_SECRET_BYTES or len(set(value)) < 8):
            raise ValueError(
                f"CJUDGE_SECRET_KEY must be at least {MIN_SECRET_BYTES} random bytes (a short or "
                "guessable key lets anyone forge log-ins); make one with: python -c "
                "'import secrets; print(secrets.token_urlsafe(48))' (or leave it unset: one is "
                "generated in the data directory)")
        return secret

    @cached_property
    def url(self) -> str:
        """The SQLAlchemy URL: ``database_url`` or SQLite in the data directory."""
        if self.database_url:
            url = self.database_url
            return url.replace("postgresql://", "postgresql+psycopg://", 1)
        return f"sqlite:///{self.data_dir.resolve() / 'judge.db'}"

    @cached_property
    def secret(self) -> str:
        """The token-signing secret: from the environment, else generated once in the data dir."""
        if self.secret_key is not None and self.secret_key.get_secret_value():
            return self.secret_key.get_secret_value()
        return persisted_secret(self.data_dir / "secret_key")


def private_dir(path: Path) -> Path:
    """Create ``path`` if needed and make it the owner's alone (0700)."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def persisted_secret(path: Path) -> str:
    """Read the secret at ``path``, creating it (mode 0600, atomically) on first use."""
    private_dir(path.parent)
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(48))
        try:
            os.link(tmp, path)  # atomic: the first process to link wins
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


def settings_env(settings: Settings) -> dict[str, str]:
    """``settings`` as ``CJUDGE_*`` variables, for worker processes started by the server."""
    env = dict(os.environ)
    for name, value in settings.model_dump().items():
        if value is None:
            continue
        if isinstance(value, Path):
            value = value.resolve()
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        if isinstance(value, list):
            value = json.dumps([v.get_secret_value() if isinstance(v, SecretStr) else v
                                for v in value])
        text = str(value).lower() if isinstance(value, bool) else str(value)
        env[f"CJUDGE_{name.upper()}"] = text
    return env
