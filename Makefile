# Executable Proofs: build, test and regenerate. Every target creates .venv and installs
# requirements.txt on first use (and again when requirements.txt or pyproject.toml change).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# One thread for every kernel, test and chapter: a thread count changes the order of sums. MKL's strict
# reproducibility: its sums then do not depend on the operands' memory alignment either (lib/nnproofs/__init__.py).
THREADS := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 MKL_CBWR=AUTO,STRICT
# The committed notebooks were executed on the CPU at BOOK_SCALE=ci: tests compare against exactly that.
CI_ENV := BOOK_SCALE=ci BOOK_DEVICE=cpu $(THREADS)
# "Another reader's machine" on this one: torch without its AVX2/AVX-512 kernels, MKL in its
# conditional-reproducibility mode, numpy's OpenBLAS with AVX-only kernels. Each moves the low-order
# bits of sums and products (CONTRIBUTING.md, the output contract).
ALT_CPU := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE OPENBLAS_CORETYPE=Sandybridge
# Tests record the claims they execute in a folder of their own, never in the book's _build/ledger.
TEST_LEDGER = BOOK_LEDGER_DIR=$$(mktemp -d)
# Workers of the second-machine run (CI runs it beside the book build, one core each).
PORTABLE_WORKERS ?= 2
NBVAL := --nbval --nbval-current-env --nbval-cell-timeout 300 --nbval-kernel-startup-timeout 300 --nbval-sanitize-with tests/nbval_sanitize.cfg
# gpu-check needs only torch, numpy and pytest: it runs with $(GPU_PYTHON) on the source tree.
GPU_PYTHON ?= python3
GPU_SCALE  ?= full
GPU_OUT    ?= gpu-results
# A smoke run of the same script (CI on the CPU): only these claims, and the barrier benchmark with --smoke.
GPU_CLAIMS ?=
GPU_BENCH_ARGS ?=
# More than one visible GPU: the claims run on a Dask cluster of one worker per GPU (needs dask-cuda).
GPU_COUNT = $(shell $(GPU_PYTHON) -c "import torch; print(torch.cuda.device_count())" 2>/dev/null || echo 0)
GPU_CLUSTER = $(if $(filter-out 0 1,$(GPU_COUNT)),--cluster cuda)
# Extra pytest arguments for make test / test-sweeps (e.g. PYTEST_ARGS="-k smooth").
PYTEST_ARGS ?=

.PHONY: install book test test-portable test-sweeps browser-test pdf notebooks lab gpu-check benchmarks clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

## book: execute every chapter and build the HTML book from scratch (warnings are errors)
# The whole _build goes: Sphinx would otherwise skip (and not re-execute) unchanged pages, whose
# outputs would then ignore a change in lib/.
book: $(STAMP)
	rm -rf _build
	$(THREADS) $(BIN)/jb build . -W -n --keep-going
	@echo "The book: $(abspath _build/html/index.html)"

## test: library tests, notebook sync test, and strict nbval over every committed notebook (seed sweeps apart)
# The notebooks first: each runs in order on one worker (loadscope), so their long scopes start early and the
# short test modules fill the end on both workers.
test: $(STAMP)
	$(CI_ENV) $(TEST_LEDGER) $(BIN)/python -m pytest -n 2 --dist loadscope --durations=10 -m "not slow and not browser" $(NBVAL) $(PYTEST_ARGS) notebooks tests

## test-sweeps: the seed sweeps of every trajectory-dependent assertion, and the further variants of the costliest test families
test-sweeps: $(STAMP)
	$(CI_ENV) $(TEST_LEDGER) $(BIN)/python -m pytest -n 2 --dist load --durations=20 -m slow $(PYTEST_ARGS) tests

## test-portable: strict nbval over the committed notebooks again, on the alternate CPU path
test-portable: $(STAMP)
	$(CI_ENV) $(ALT_CPU) $(TEST_LEDGER) $(BIN)/python -m pytest -n $(PORTABLE_WORKERS) --dist loadscope -p no:cacheprovider \
	    $(NBVAL) notebooks

## browser-test: every page of the built book (make book first) in Debian's chromium at 1400 and 420 px
# (apt-get install chromium chromium-driver); BROWSER_SCREENSHOTS=<folder> also saves a screenshot of each.
browser-test: $(STAMP)
	BROWSER_TEST_REQUIRED=1 $(BIN)/python -m pytest -q -p no:cacheprovider -m browser $(PYTEST_ARGS) tests/test_browser.py

## pdf: the whole book as one PDF (make book first; Debian's chromium and poppler-utils), in _build/pdf/
pdf: $(STAMP)
	$(BIN)/python tests/book_pdf.py

## notebooks: re-execute every chapter into notebooks/ (commit the result); two chapters at once
notebooks: $(STAMP)
	$(CI_ENV) $(BIN)/python tests/notebook_twins.py --jobs 2

## lab: JupyterLab on the repository; open book/*.md as notebooks (jupytext). LAB_ARGS=--allow-root as root
LAB_ARGS ?=
lab: $(STAMP)
	$(THREADS) $(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) $(LAB_ARGS)

## gpu-check: CUDA-vs-CPU tests, every claim at $(GPU_SCALE) scale, benchmarks; JSON in $(GPU_OUT)/
gpu-check:
	mkdir -p $(GPU_OUT)
	PYTHONPATH=lib $(GPU_PYTHON) -m pytest -q -p no:cacheprovider -m gpu tests --ignore=tests/test_notebook_twins.py \
	    --junitxml=$(GPU_OUT)/gpu-tests.xml
	BOOK_SCALE=$(GPU_SCALE) PYTHONPATH=lib $(GPU_PYTHON) -m nnproofs.ledger --out $(GPU_OUT)/claims.json \
	    $(if $(GPU_CLAIMS),--only $(GPU_CLAIMS)) $(GPU_CLUSTER)
	BOOK_SCALE=$(GPU_SCALE) PYTHONPATH=lib $(GPU_PYTHON) benchmarks/forward_throughput.py --out $(GPU_OUT)/forward_throughput.json
	BOOK_SCALE=$(GPU_SCALE) PYTHONPATH=lib $(GPU_PYTHON) benchmarks/barrier_paths.py --out $(GPU_OUT)/barrier_paths.json $(GPU_BENCH_ARGS)

## benchmarks: side-by-side measurements on this machine, JSON in benchmarks/results/
benchmarks: $(STAMP)
	mkdir -p benchmarks/results
	$(BIN)/python benchmarks/forward_throughput.py --out benchmarks/results/forward_throughput.json
	$(BIN)/python benchmarks/barrier_paths.py --out benchmarks/results/barrier_paths.json
	$(BIN)/python benchmarks/smooth_throughput.py --out benchmarks/results/smooth_throughput.json
	$(BIN)/python benchmarks/representation_sampling.py --out benchmarks/results/representation_sampling.json
	$(BIN)/python benchmarks/korobov_vs_tasmanian.py --out benchmarks/results/korobov_vs_tasmanian.json
	$(CI_ENV) $(BIN)/python benchmarks/ledger_cluster.py --out benchmarks/results/ledger_cluster.json

clean:
	rm -rf _build $(GPU_OUT) benchmarks/results .pytest_cache
