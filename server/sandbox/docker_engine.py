"""A minimal Docker Engine API client over the engine's unix socket (standard library only):
JSON calls, and attaching to a container's stdio as a raw stream split into stdout and stderr."""

from __future__ import annotations

import http.client
import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

from .process import SandboxError

#: a stream frame's header: stream type (1 stdout, 2 stderr), 3 zero bytes, payload length
FRAME_HEADER = struct.Struct(">BxxxI")


class EngineError(SandboxError):
    """The engine could not be reached or refused a call."""


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, socket_path: str, timeout: float | None) -> None:
        super().__init__("docker", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


class Engine:
    """The Docker engine at ``socket_path``, spoken to in the API version it reports."""

    def __init__(self, socket_path: str, timeout_s: float = 30.0) -> None:
        self.socket_path = socket_path
        self.timeout_s = timeout_s
        self.prefix = ""
        self.version = self.call("GET", "/version")
        self.prefix = f"/v{self.version['ApiVersion']}"

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None,
             ok: tuple[int, ...] = (200, 201, 204)) -> Any:
        """One API call; its decoded JSON answer (None when empty). ``EngineError`` when the
        engine is unreachable or answers with a status not in ``ok``."""
        data = self._request(method, path, body, query, ok)
        return json.loads(data) if data else None

    def count_events(self, filters: dict[str, list[str]], since: float) -> int:
        """How many events matching ``filters`` the engine logged from ``since`` until now."""
        query = {"since": f"{since:.6f}", "until": f"{time.time():.6f}",
                 "filters": json.dumps(filters)}
        data = self._request("GET", "/events", None, query, (200,))
        return sum(1 for line in data.splitlines() if line.strip())  # one JSON object a line

    def wait_removed(self, container_id: str) -> Callable[[], int | None]:
        """Ask now (before starting the container, so that no end is missed) to be told when
        it is removed; the function returned blocks until then and gives its exit status, or
        None if the engine could not tell."""
        conn = _UnixConnection(self.socket_path, None)
        try:
            conn.request("POST", f"{self.prefix}/containers/{quote(container_id)}/wait"
                                 "?condition=removed")
        except OSError as exc:
            conn.close()
            raise EngineError(f"docker engine at {self.socket_path}: {exc}") from None

        def exit_status() -> int | None:
            try:
                response = conn.getresponse()
                answer = json.loads(response.read())
                return answer["StatusCode"] if response.status == 200 else None
            except (OSError, ValueError, KeyError, TypeError):
                return None
            finally:
                conn.close()

        return exit_status

    def _request(self, method: str, path: str, body: Any, query: dict[str, Any] | None,
                 ok: tuple[int, ...]) -> bytes:
        url = self.prefix + path + (f"?{urlencode(query)}" if query else "")
        payload = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if payload is not None else {}
        conn = _UnixConnection(self.socket_path, self.timeout_s)
        try:
            conn.request(method, url, body=payload, headers=headers)
            response = conn.getresponse()
            data = response.read()
        except OSError as exc:
            raise EngineError(f"docker engine at {self.socket_path}: {exc}") from None
        finally:
            conn.close()
        if response.status not in ok:
            raise EngineError(f"docker engine: {method} {path}: {response.status} "
                              f"{_message(data)}")
        return data

    def attach(self, container_id: str) -> Attachment:
        """Attach to a created container's stdin, stdout and stderr (before starting it)."""
        query = urlencode({"stream": 1, "stdin": 1, "stdout": 1, "stderr": 1})
        request = (f"POST {self.prefix}/containers/{quote(container_id)}/attach?{query} HTTP/1.1\r\n"
                   "Host: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n"
                   "Content-Length: 0\r\n\r\n").encode()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout_s)
            sock.connect(self.socket_path)
            sock.sendall(request)
            head = _read_head(sock)
        except OSError as exc:
            sock.close()
            raise EngineError(f"docker engine: attaching to {container_id[:12]}: {exc}") from None
        status = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"?"
        if status not in (b"101", b"200"):
            sock.close()
            raise EngineError(f"docker engine: attach answered {head.splitlines()[0]!r}")
        sock.settimeout(None)
        return Attachment(sock)


class Attachment:
    """A container's attached stdio: write its stdin; ``split`` copies its multiplexed
    output into two file descriptors (closed when the container's output ends)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.thread: threading.Thread | None = None

    def write(self, data: bytes) -> None:
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
        self.sock.close()

    def _copy(self, stdout_fd: int, stderr_fd: int) -> None:
        targets = {1: stdout_fd, 2: stderr_fd}
        try:
            while header := _recv_exact(self.sock, FRAME_HEADER.size):
                kind, size = FRAME_HEADER.unpack(header)
                payload = _recv_exact(self.sock, size)
                if kind in targets:
                    _write_all(targets[kind], payload)
        except OSError:
            pass  # the attachment was closed, or a reader went away
        finally:
            os.close(stdout_fd)
            os.close(stderr_fd)


def _read_head(sock: socket.socket) -> bytes:
    """The HTTP response head, read byte by byte so that no stream data is consumed."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        if not byte:
            raise OSError("connection closed during the HTTP upgrade")
        head += byte
    return head


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    """Exactly ``size`` bytes, or b"" at a clean end of stream."""
    data = b""
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 16))
        if not chunk:
            if data:
                raise OSError("stream ended inside a frame")
            return b""
        data += chunk
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _message(data: bytes) -> str:
    try:
        return json.loads(data).get("message", "")
    except (ValueError, AttributeError):
        return data[:200].decode("utf-8", "replace")
