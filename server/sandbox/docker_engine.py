"""The Docker engine through docker-py (the ``docker`` package's low-level ``APIClient``): its
errors as ``EngineError``, and a container's attached stdio split into stdout and stderr."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from docker.errors import APIError, DockerException
from docker.utils.socket import frames_iter
from requests.exceptions import RequestException

import docker

from .process import SandboxError

P = ParamSpec("P")
T = TypeVar("T")
#: statuses of a container that is already gone (404) or no longer running (409)
GONE = (404, 409)


class EngineError(SandboxError):
    """The engine could not be reached or refused a call (``status``: its HTTP status)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def checked(what: str, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)``, docker-py's and the connection's errors raised as
    ``EngineError`` naming ``what``."""
    try:
        return call(*args, **kwargs)
    except APIError as exc:
        raise EngineError(f"docker engine: {what}: {exc.status_code} {exc.explanation or exc}",
                          exc.status_code) from None
    except (DockerException, RequestException, OSError) as exc:
        raise EngineError(f"docker engine: {what}: {exc}") from None


def connect(socket_path: str, timeout_s: int = 30) -> docker.APIClient:
    """A client of the engine at ``socket_path``, speaking the API version it reports."""
    return checked(f"at {socket_path}", docker.APIClient, base_url=f"unix://{socket_path}",
                   version="auto", timeout=timeout_s)


def attach(api: docker.APIClient, container_id: str) -> Attachment:
    """Attach to a created container's stdin, stdout and stderr (before starting it, so that
    nothing it prints comes before the answer's head)."""
    stream = checked(f"attaching to {container_id[:12]}", api.attach_socket, container_id,
                     params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
    # on a Unix socket docker-py answers a SocketIO: the socket under it sends and shuts down
    return Attachment(getattr(stream, "_sock", stream), keep=stream)


class Attachment:
    """A container's attached stdio: write its stdin; ``split`` copies its multiplexed
    output into two file descriptors (closed when the container's output ends)."""

    def __init__(self, sock: socket.socket, keep: Any = None) -> None:
        self.sock = sock
        self.keep = keep  # docker-py's stream over ``sock``: its answer closes it when collected
        self.thread: threading.Thread | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Send ``data`` to the container's stdin."""
        self.sock.sendall(data)

    def split(self, stdout_fd: int, stderr_fd: int) -> None:
        """Start copying stdout frames to ``stdout_fd`` and stderr frames to ``stderr_fd``."""
        self.thread = threading.Thread(target=self._copy, args=(stdout_fd, stderr_fd),
                                       name="docker-attach", daemon=True)
        self.thread.start()

    def close(self) -> None:
        """End the attachment (the container sees its stdin close) and the copying."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        if self.thread is not None:
            self.thread.join(timeout=5)
        if self.keep is not None:
            self.keep.close()
        self.sock.close()

    def _copy(self, stdout_fd: int, stderr_fd: int) -> None:
        targets = {1: stdout_fd, 2: stderr_fd}
        try:
            for kind, payload in frames_iter(self.sock, tty=False):
                if kind in targets:
                    _write_all(targets[kind], payload)
        except OSError:
            pass  # the attachment was closed, or a reader went away
        finally:
            os.close(stdout_fd)
            os.close(stderr_fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
