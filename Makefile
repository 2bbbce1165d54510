# The two commands of the README: `make serve` starts the judge, `make test` runs every test.
.PHONY: setup serve test lint

setup:
	./scripts/setup.sh

serve: setup
	.venv/bin/python -m server

lint: setup
	.venv/bin/ruff check .

test: setup
	.venv/bin/ruff check .
	.venv/bin/python -m pytest -q
	cd web && npm test
