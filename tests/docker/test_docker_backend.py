"""The docker sandbox backend without an engine: the container it asks for is locked down, and
an attached container's multiplexed output is split into the result channel and the rest."""

from __future__ import annotations

import os
import socket
import struct

from server.sandbox.docker_backend import LABEL, container_config
from server.sandbox.docker_engine import Attachment
from server.settings import Settings


def test_container_is_locked_down() -> None:
    settings = Settings(memory_limit_mb=512, pids_limit=100, cpu_quota=1.5, tmpfs_mb=32)
    config = container_config(settings, "worker-1:7", cpu_seconds=300, api_version="1.41")
    host = config["HostConfig"]
    assert config["User"] == "65534:65534"
    assert config["NetworkDisabled"] and host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"]
    assert host["Tmpfs"] == {"/tmp": f"rw,nosuid,nodev,size={32 << 20},mode=1777"}
    assert host["Memory"] == host["MemorySwap"] == 512 << 20
    assert host["PidsLimit"] == 100
    assert host["NanoCpus"] == 1_500_000_000
    assert host["CpuShares"] == 2  # warming up: idle CPU only
    assert host["CapDrop"] == ["ALL"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert host["Init"] is False and host["AutoRemove"]  # the runner is PID 1, alone on stdout
    assert host["LogConfig"]["Type"] == "none"
    assert "Binds" not in host and "Mounts" not in host and "Privileged" not in host
    assert {u["Name"]: u["Hard"] for u in host["Ulimits"]}["fsize"] == 32 << 20
    assert config["Labels"] == {LABEL: "worker-1:7"}
    assert config["Image"] == settings.docker_image
    assert config["OpenStdin"] and config["StdinOnce"] and not config["Tty"]
    assert config["AttachStdin"] and config["AttachStdout"] and config["AttachStderr"]


def test_output_is_split_by_stream() -> None:
    ours, theirs = socket.socketpair()
    result_r, result_w = os.pipe()
    output_r, output_w = os.pipe()
    attachment = Attachment(ours)
    attachment.split(result_w, output_w)
    frames = [(1, b'{"ready": true}\n'), (2, b"learner prints\n"), (1, b""), (1, b'{"name": "a"}\n')]
    for kind, payload in frames:  # the engine's frame: stream, 3 zero bytes, length
        theirs.sendall(struct.pack(">BxxxI", kind, len(payload)) + payload)
    theirs.close()
    attachment.thread.join(timeout=5)
    with os.fdopen(result_r, "rb") as results, os.fdopen(output_r, "rb") as output:
        assert results.read() == b'{"ready": true}\n{"name": "a"}\n'
        assert output.read() == b"learner prints\n"
    attachment.close()
