# Every target sets up .venv first (idempotent), so each is one command on a fresh machine.
PY := .venv/bin/python
export PATH := $(CURDIR)/.venv/bin:$(PATH)
export MPLBACKEND := Agg

.PHONY: setup demo test test-fast lint release sync check clean

setup:
	@bash scripts/setup.sh

DEMO := $(CURDIR)/course/demo
DEMO_COHORT := demo-2026
# The demo is H2's (autograder/bundles/h2_attention). Its due date: the bundle's
# samples.DEMO_DUE (a test checks they agree); one submission is late.
DEMO_DUE := 2026-12-14 23:59:00 UTC
# The course its pages name: this repository's (the course id its nbgrader_config.py gives
# nbgrader's own commands run from here), remembered in $(DEMO)/course.json.
DEMO_COURSE := h2-attention

## demo: the main job: prove the release current and clean, build a sample cohort
## (correct, buggy, broken, hostile, late and near-copied submissions), grade it end to
## end against its due date, and write the instructor's report
demo: setup
	$(PY) -m autograder sync-solutions h2_attention --check
	$(PY) -m autograder generate-release h2_attention --check
	$(PY) -m autograder.authoring.sample_cohort h2_attention $(DEMO) --cohort $(DEMO_COHORT)
	@# --cohort, --due and --course-name are remembered in $(DEMO)/course.json: a later `autograde h2_attention
	@# --root course/demo` (plain, --student, --force) keeps the late student late.
	$(PY) -m autograder autograde h2_attention --root $(DEMO) --force --cohort $(DEMO_COHORT) --due "$(DEMO_DUE)" --course-name $(DEMO_COURSE)
	$(PY) -m nbgrader export --CourseDirectory.root=$(DEMO) --to $(DEMO)/nbgrader-export.csv --log-level=WARN
	$(PY) -m autograder report h2_attention --root $(DEMO) --cohort $(DEMO_COHORT)
	@echo "open $(DEMO)/report/report.html, $(DEMO)/grades.csv and $(DEMO)/autograded/<student>/h2_attention/feedback.html"

## test: the whole suite, slow end-to-end tests included (what CI runs)
test: setup
	$(PY) -m pytest -n 2 --dist loadfile

## test-fast: skip the tests that start kernels or nbgrader
test-fast: setup
	$(PY) -m pytest -m "not slow"

lint: setup
	$(PY) -m ruff check .

# The assignment `make release` and `make sync` author (empty: the one with a source folder).
ASSIGNMENT ?=

## release: regenerate release/<assignment>/ after editing source/ (instructors;
## ASSIGNMENT=<name> when several bundles have a source folder)
release: setup
	$(PY) -m autograder generate-release $(ASSIGNMENT)

## sync: copy an assignment's reference and points into its source notebook (instructors)
sync: setup
	$(PY) -m autograder sync-solutions $(ASSIGNMENT)

clean:
	rm -rf .venv .pytest_cache .ruff_cache gradebook.db
