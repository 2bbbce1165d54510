"""The web app's static files: the build's precompressed copies are sent with Content-Encoding
to clients that accept them, the plain file to the others."""

from __future__ import annotations

import gzip
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.api.routes.web import mount_web

WASM = b"\0asm" + bytes(range(256)) * 64


def client(tmp_path: Path) -> TestClient:
    (tmp_path / "index.html").write_text("<!doctype html><title>app</title>")
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "pyodide" / "x.wasm").write_bytes(WASM)
    (tmp_path / "pyodide" / "x.wasm.gz").write_bytes(gzip.compress(WASM))
    (tmp_path / "pyodide" / "x.wasm.br").write_bytes(b"brotli bytes")  # not decoded here
    app = FastAPI()
    mount_web(app, tmp_path)
    return TestClient(app)


def test_brotli_then_gzip_then_plain(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        with c.stream("GET", "/pyodide/x.wasm", headers={"accept-encoding": "gzip, br"}) as br:
            assert br.headers["content-encoding"] == "br"
            assert br.headers["content-type"] == "application/wasm"
            assert br.headers["vary"] == "Accept-Encoding"
            assert b"".join(br.iter_raw()) == b"brotli bytes"
        gz = c.get("/pyodide/x.wasm", headers={"accept-encoding": "gzip, br;q=0"})
        assert gz.headers["content-encoding"] == "gzip"
        assert gz.content == WASM  # the client decodes it
        plain = c.get("/pyodide/x.wasm", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers
        assert plain.content == WASM


def test_etag_revalidation_and_client_routes(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        first = c.get("/pyodide/x.wasm", headers={"accept-encoding": "gzip"})
        again = c.get("/pyodide/x.wasm", headers={"accept-encoding": "gzip",
                                                  "if-none-match": first.headers["etag"]})
        assert again.status_code == 304
        assert "<title>app</title>" in c.get("/some/route").text
