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

## Run the test suite against the installed package, but the slow tests
## (pre-commit, Neovim, building distributions, the hostile-corpus and fuzz
## sweeps: marked `slow`): what a contributor runs between changes.
test: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider -m "not slow"

## Run every test, the slow ones included (CI runs it once).
test-all: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider

## Regenerate docs/rules/, the README rule table, docs/catalogue.md and
## idemlint/rule_texts.py from rule and catalogue metadata.
docs: $(STAMP)
	$(BIN)/python -m idemlint.docs .

clean:
	rm -rf $(VENV) build *.egg-info
