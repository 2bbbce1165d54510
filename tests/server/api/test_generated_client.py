"""A client generated from the server's OpenAPI document builds: the document, dumped from the
app in-process, through openapi-typescript into types, and a use of them with openapi-fetch
(``client/usage.ts``) type-checked by tsc, strict (docs/api.md, "A generated client")."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from server.api.app import create_app
from server.settings import Settings

HERE = Path(__file__).parent
WEB = HERE.parents[2] / "web"
BIN = WEB / "node_modules" / ".bin"


def node_tool(*args: str | Path, cwd: Path) -> None:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


def test_generated_client_builds(tmp_path: Path) -> None:
    assert (BIN / "tsc").exists(), "web packages missing: cd web && npm ci"
    app = create_app(Settings(data_dir=tmp_path / "data", workers=0, sandbox="none"),
                     embedded_workers=False)
    (tmp_path / "openapi.json").write_text(json.dumps(app.openapi()), encoding="utf-8")
    node_tool(BIN / "openapi-typescript", "openapi.json", "--output", "api.d.ts", cwd=tmp_path)
    shutil.copyfile(HERE / "client" / "usage.ts", tmp_path / "usage.ts")
    modules = WEB / "node_modules"
    (tmp_path / "tsconfig.json").write_text(json.dumps({
        "compilerOptions": {"strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext",
                            "moduleResolution": "Bundler", "lib": ["ES2022", "DOM"],
                            "types": [], "typeRoots": [str(modules / "@types")],
                            "paths": {"openapi-fetch": [str(modules / "openapi-fetch")]}},
        "files": ["usage.ts", "api.d.ts"]}), encoding="utf-8")
    node_tool(BIN / "tsc", "--project", "tsconfig.json", cwd=tmp_path)
    # the build fails when the use does not fit the document: the check can break
    (tmp_path / "usage.ts").write_text((tmp_path / "usage.ts").read_text().replace(
        "created.data.id", "created.data.identifier"))
    done = subprocess.run([str(BIN / "tsc"), "--project", "tsconfig.json"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert done.returncode != 0 and "identifier" in done.stdout
