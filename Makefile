# The two commands of the README: `make serve` starts the judge, `make test` runs every test.
.PHONY: setup serve test lint screenshots lowest-deps

setup:
	./scripts/setup.sh

serve: setup
	.venv/bin/python -m server

# ruff, then mypy over cjudge and server ([tool.mypy] in pyproject.toml), mypy --strict over
# every exercise's grader (one call each: all are modules named grader) and over the browser's
# Python, web/src/py as the package cjudge_web (stubs: web/typings): zero errors
lint: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/python scripts/mypy_graders.py
	.venv/bin/python scripts/mypy_web.py

test: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/python scripts/mypy_graders.py
	.venv/bin/python scripts/mypy_web.py
	.venv/bin/python scripts/lowest_deps.py
	.venv/bin/python -m pytest -q
	cd web && npm test

# The browser tests with their screenshots written into docs/screenshots (the tests alone write
# them to a temporary folder, so `make test` never changes the tracked tree).
screenshots: setup
	cd web && CJUDGE_SCREENSHOTS=$(CURDIR)/docs/screenshots npm test

# Every direct dependency at its declared floor in a temporary venv (needs PyPI; torch is taken
# from .venv), then the package's commands, the server and its tests: scripts/lowest_deps.py
# (also a step of `make test`, so CI proves the floors).
lowest-deps: setup
	.venv/bin/python scripts/lowest_deps.py
