# The two commands of the README: `make serve` starts the judge, `make test` runs every test.
.PHONY: setup serve test lint screenshots

setup:
	./scripts/setup.sh

serve: setup
	.venv/bin/python -m server

# ruff, then mypy over cjudge and server ([tool.mypy] in pyproject.toml): zero errors
lint: setup
	.venv/bin/ruff check .
	.venv/bin/mypy

test: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	.venv/bin/python -m pytest -q
	cd web && npm test

# The browser tests with their screenshots written into docs/screenshots (the tests alone write
# them to a temporary folder, so `make test` never changes the tracked tree).
screenshots: setup
	cd web && CJUDGE_SCREENSHOTS=$(CURDIR)/docs/screenshots npm test
