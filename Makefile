# Each target creates its own virtual environment in .venv (Python >= 3.9).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SOURCES := pyproject.toml $(shell find idemlint -name '*.py')

.PHONY: demo test test-all docs clean

$(STAMP): $(SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet '.[test]'
	touch $(STAMP)

## Run idemlint on the example shop (findings are expected: exit 1 is fine).
demo: $(STAMP)
	$(BIN)/idemlint check --format review examples/ || [ $$? -eq 1 ]

# The tests run in JOBS worker processes (pytest-xdist; "auto": one per
# core, 0: none, all in pytest's own); PYTEST_ARGS adds to pytest's command
# line (a file, -k EXPR, -x).
JOBS ?= auto
PYTEST_ARGS ?=
PYTEST := $(BIN)/pytest -p no:cacheprovider -n $(JOBS)

## The quick tier, between changes: every test but those marked slow
## (pre-commit, editors, the distributions, the hostile-corpus and fuzz
## sweeps, runs over whole trees, a fresh clone, and all but the first case
## of each test marked sweep), against the installed package.
test: $(STAMP)
	$(PYTEST) -m 'not slow' $(PYTEST_ARGS)

## Every test, the slow ones included (CI runs it once).
test-all: $(STAMP)
	$(PYTEST) $(PYTEST_ARGS)

## Regenerate docs/rules/, the README rule table, docs/catalogue.md and
## idemlint/rule_texts.py from rule and catalogue metadata.
docs: $(STAMP)
	$(BIN)/python -m idemlint.docs .

clean:
	rm -rf $(VENV) build *.egg-info
