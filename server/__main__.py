"""``python -m server``: the judge on this machine — API, web app and embedded workers, with
SQLite in the data directory and the bubblewrap sandbox (checked before anything starts)."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys

from pydantic import ValidationError

from .api.app import create_app
from .httpserver import serve
from .sandbox import preflight
from .settings import Settings

NO_SANDBOX_BANNER = """
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
!!  NO SANDBOX: submitted code runs as an ordinary process of this machine's user, with   !!
!!  this user's files and network. Use only for yourself, on localhost, with your code.   !!
!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!
"""


def main(argv: list[str] | None = None) -> None:
    """Parse options (they override ``CJUDGE_*`` variables), check the sandbox, serve."""
    parser = argparse.ArgumentParser(prog="python -m server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, help="embedded workers (default 2; 0: none)")
    parser.add_argument("--data-dir", help="where SQLite and the generated secret live")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run submissions unisolated (a single trusted user only)")
    args = parser.parse_args(argv)
    overrides = {"workers": args.workers, "data_dir": args.data_dir,
                 "sandbox": "none" if args.no_sandbox else None}
    for name, value in overrides.items():
        if value is not None:
            os.environ[f"CJUDGE_{name.upper()}"] = str(value)
    try:
        settings = Settings()
    except ValidationError as exc:
        sys.exit("cannot start the judge: " + "; ".join(
            f"CJUDGE_{str(e['loc'][0]).upper().removeprefix('CJUDGE_')}: {e['msg']}"
            for e in exc.errors()))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    problems, isolation = preflight(settings)  # starts one runner as the workers will
    if problems:
        sys.exit("cannot start the judge:\n  - " + "\n  - ".join(problems)
                 + "\n(missing programs: apt-get install bubblewrap util-linux coreutils dash;"
                 " or start with --no-sandbox for a single trusted user)")
    if settings.sandbox == "none":
        print(NO_SANDBOX_BANNER, file=sys.stderr)
    print(f"sandbox: {settings.sandbox}; {isolation}", file=sys.stderr)
    app = create_app(settings)
    gc.freeze()  # the imports stay: a full collection, which stalls every request, skips them
    serve(app, settings, args.host, args.port)


if __name__ == "__main__":
    main()
