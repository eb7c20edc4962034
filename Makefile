PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# PyTorch is an optional peer: tests compare against it and the bench measures it. The install
# takes it only from a local CPU wheel, never downloaded (a download would be a CUDA build of GBs);
# `make bench` asks pip for the `bench` extra, which downloads it only where no wheel was installed.
TORCH_WHEEL := $(firstword $(wildcard /opt/wheels/torch-2.13.0+cpu-*.whl))

.PHONY: demo test test-ownership bench docs clean vscode

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[jupyter,test,cluster]'
	@# Bytecode for every module now: a machine that never writes it (PYTHONDONTWRITEBYTECODE, a
	@# read-only install) would otherwise compile Lamina's sources on every start.
	$(BIN)/python -m compileall -q src/lamina
	@if [ -n "$(TORCH_WHEEL)" ]; then \
	  $(BIN)/pip install --quiet "$(TORCH_WHEEL)" 2>/dev/null || echo "torch could not be installed: torch comparisons will be skipped"; \
	else echo "no local torch wheel: torch comparisons will be skipped"; fi
	touch $(STAMP)

demo: $(STAMP)
	@for f in examples/first_steps.lam examples/sequences.lam examples/trial.lam examples/models.lam examples/attention.lam examples/cnn_digits.lam examples/likelihood.lam examples/seed/*.lam; do \
	  echo "== $$f"; $(BIN)/lamina $$f || exit 1; done
	@echo "== examples/project/train.lam --epochs 300 --lr 0.1"
	@$(BIN)/lamina examples/project/train.lam --epochs 300 --lr 0.1
	@echo "== examples/sales.lam (a million sales, written once by examples/data/make_sales.py)"
	@$(BIN)/python examples/data/make_sales.py
	@$(BIN)/lamina examples/sales.lam

test: $(STAMP)
	$(BIN)/python -m pytest

# The tests of the ownership rule (pytest -m ownership: value semantics and writing in place, which
# rest on CPython's reference counts), collected only from the modules that mark them, in a venv
# with only the test extra (no kernel, no Ray): .ci/run runs them on every Python it finds, e.g.
# make PY=python3.13 VENV=.venv-3.13 test-ownership
$(VENV)/.installed-test: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

test-ownership: $(VENV)/.installed-test
	$(BIN)/python -m pytest -m ownership $$(grep -rlw --include='test_*.py' 'pytest.mark.ownership' tests)

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]' || echo "bench: peers could not be installed; they are reported as missing"
	@# Fresh bytecode for sources edited since install, so the start-up row never times a compile.
	$(BIN)/python -m compileall -q src/lamina
	$(BIN)/python bench/run.py

# The VS Code extension, from this folder: its npm packages, then a link among the user's extensions.
VSCODE_EXTENSIONS ?= $(HOME)/.vscode/extensions
vscode: $(STAMP)
	cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error
	mkdir -p "$(VSCODE_EXTENSIONS)"
	ln -sfn "$(CURDIR)/editors/vscode" "$(VSCODE_EXTENSIONS)/lamina.lamina-0.1.0"
	@echo "Linked the Lamina extension into $(VSCODE_EXTENSIONS); restart VS Code."

docs: $(STAMP)
	$(BIN)/lamina docs build docs/builtins
	$(BIN)/python -m lamina.docs.builtin_index

clean:
	rm -rf $(VENV) .venv-3.* build src/*.egg-info
