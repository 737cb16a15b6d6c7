# Quick start: `make run` (set-up, build, the example kernel on the embedded simulator) and
# `make test` (set-up, build, every test). Python is Debian's /usr/bin/python3 on purpose.
PYTHON ?= /usr/bin/python3
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
export PYTHONPATH := $(CURDIR)/clients/python

.PHONY: all deps configure build run examples test test-cpp test-python lint bench calibrate fit isa-docs clean

all: build

deps:
	@scripts/setup-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DPython3_EXECUTABLE=$(PYTHON) > $(BUILD_DIR).configure.log 2>&1 \
	  || (cat $(BUILD_DIR).configure.log; exit 1)

# The frontend's bytecode is written here once, so that the first `import asc` of every process
# loads it instead of compiling ~90 modules (docs/performance.md).
build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)
	@$(PYTHON) -m compileall -q clients/python/asc > /dev/null

run: build
	$(PYTHON) examples/vadd.py

# Every example kernel on the embedded simulator, each printing its check and cycles.
EXAMPLES = vadd add_framework linear_cube matmul_leakyrelu matmul_tuning matmul_basic_api \
	matmul_tiling_strategy gelu swiglu rmsnorm flash_attention
examples: build
	@set -e; for e in $(EXAMPLES); do echo "== examples/$$e.py"; $(PYTHON) examples/$$e.py; done
	$(PYTHON) examples/gelu.py --basic
	$(PYTHON) examples/swiglu.py --dtype float16

test: build
	$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-python:
	AICORE_SIMD=$(CURDIR)/$(BUILD_DIR)/bin/aicore-simd AICORE_SIM_BUILD_DIR=$(CURDIR)/$(BUILD_DIR) \
	  $(PYTHON) -m pytest -q tests/python

# clang-format on every C++ file, clang-tidy on the .cc files changed since LINT_BASE (default:
# the merge-base with origin/main, else HEAD~1). Needs `make build` first; fails on any finding.
lint: deps
	@BUILD_DIR=$(BUILD_DIR) scripts/lint.sh

# aicore-farm over examples/ and tests/farm/ (reduced calibration kernels) on two local daemons,
# against the committed baseline (docs/tools.md). A cycle count that grows fails it; after an
# intended timing change, `make farm-baseline` rewrites the baseline (commit it with the change).
FARM = $(PYTHON) clients/python/bin/aicore-farm run examples tests/farm --spawn 2 \
	--simd $(BUILD_DIR)/bin/aicore-simd --baseline tests/farm/baseline.json --threshold 0 \
	--no-cache --no-progress
.PHONY: farm farm-baseline
farm: build
	$(FARM) --junit $(BUILD_DIR)/farm-junit.xml

farm-baseline: build
	$(FARM) --update-baseline

bench: build
	$(PYTHON) bench/vadd_1m.py
	$(PYTHON) bench/add_48core.py
	$(PYTHON) bench/mmad_large.py --repeat 5
	$(PYTHON) bench/launch_path.py
	$(BUILD_DIR)/bin/aicore_sim_bench

# Simulated vs measured times: the Matmul tuning points of hardware-910b.md 7.1 (printed, not
# fitted), then the Add ladder (hardware-910b.md 7), whose last line is "MAPE: X%".
calibrate: build
	$(PYTHON) bench/calibration/run.py

# Fits the preset's figures to the calibration set and prints the diff it would write (no write;
# bench/calibration/fit.py --write writes it). docs/timing-model.md 7d.
fit: build
	$(PYTHON) bench/calibration/fit.py --logo

# docs/isa.md from the instruction table (sim/isa/instructions.def); a test checks it is current.
isa-docs: build
	$(BUILD_DIR)/bin/aicore-isa markdown > docs/isa.md

# libFuzzer targets on the IR decoder (ir_fuzz) and the daemon's launch handling (service_fuzz),
# in their own clang build with ASan/UBSan (docs/fuzzing.md). Each runs FUZZ_SECONDS from the
# committed seeds (tests/fuzz/corpus/), which stay untouched: new inputs go to the scratch corpus
# in $(FUZZ_BUILD_DIR)/corpus/, findings to $(FUZZ_BUILD_DIR)/findings/. `make fuzz-ci`: 30 s each.
.PHONY: fuzz-build fuzz fuzz-ci
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_CXX ?= clang++-19
FUZZ_SECONDS ?= 300
FUZZ_MAX_LEN ?= 32768
FUZZ_TARGETS = ir_fuzz service_fuzz
# Stacks with function names and lines: clang's symbolizer if installed, else binutils' addr2line.
FUZZ_SYMBOLIZER ?= $(firstword $(shell for t in llvm-symbolizer-19 llvm-symbolizer addr2line; do \
	command -v $$t; done))
FUZZ_ENV = ASAN_OPTIONS=external_symbolizer_path=$(FUZZ_SYMBOLIZER) \
	UBSAN_OPTIONS=print_stacktrace=1:external_symbolizer_path=$(FUZZ_SYMBOLIZER)

fuzz-build: deps
	@mkdir -p $(FUZZ_BUILD_DIR)
	@cmake -S . -B $(FUZZ_BUILD_DIR) -DAICORE_FUZZ=ON -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) \
	  -DPython3_EXECUTABLE=$(PYTHON) > $(FUZZ_BUILD_DIR)/configure.log 2>&1 \
	  || (cat $(FUZZ_BUILD_DIR)/configure.log; exit 1)
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target $(FUZZ_TARGETS)

fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	  c=$(FUZZ_BUILD_DIR)/corpus/$$(case $$t in ir_fuzz) echo ir;; *) echo launch;; esac); \
	  mkdir -p $$c $(FUZZ_BUILD_DIR)/findings; \
	  echo "== $$t for $(FUZZ_SECONDS) s (scratch corpus $$c)"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD_DIR)/bin/$$t -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=$(FUZZ_MAX_LEN) -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD_DIR)/findings/$$t- $$c tests/fuzz/corpus/$$(basename $$c); \
	done

fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=30

clean:
	rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log
