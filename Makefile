# Every target sets up .venv first (idempotent), so each is one command on a fresh machine.
PY := .venv/bin/python
export PATH := $(CURDIR)/.venv/bin:$(PATH)
export MPLBACKEND := Agg

.PHONY: setup demo test test-fast lint release sync check clean

setup:
	@bash scripts/setup.sh

## demo: the main job (today: regenerate the release from source/ and validate it)
demo: setup
	$(PY) -m autograder sync-solutions --check
	$(PY) -m autograder generate-release

## test: the whole suite, slow end-to-end tests included (what CI runs)
test: setup
	$(PY) -m pytest

## test-fast: skip the tests that start kernels or nbgrader
test-fast: setup
	$(PY) -m pytest -m "not slow"

lint: setup
	$(PY) -m ruff check .

## release: regenerate release/ after editing source/ (instructors)
release: setup
	$(PY) -m autograder generate-release

## sync: copy solutions/ into the source notebook's solution cells (instructors)
sync: setup
	$(PY) -m autograder sync-solutions

clean:
	rm -rf .venv .pytest_cache .ruff_cache gradebook.db
