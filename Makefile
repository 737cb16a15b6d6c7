# Quick start: `make run` (set-up, build, the example kernel on the embedded simulator) and
# `make test` (set-up, build, every test). Python is Debian's /usr/bin/python3 on purpose.
PYTHON ?= /usr/bin/python3
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
export PYTHONPATH := $(CURDIR)/clients/python

.PHONY: all deps configure build run examples test test-cpp test-python lint bench calibrate isa-docs clean

all: build

deps:
	@scripts/setup-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DPython3_EXECUTABLE=$(PYTHON) > $(BUILD_DIR).configure.log 2>&1 \
	  || (cat $(BUILD_DIR).configure.log; exit 1)

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(PYTHON) examples/vadd.py

# Every example kernel on the embedded simulator, each printing its check and cycles.
EXAMPLES = vadd add_framework linear_cube matmul_leakyrelu matmul_tuning matmul_basic_api gelu \
	swiglu rmsnorm flash_attention
examples: build
	@set -e; for e in $(EXAMPLES); do echo "== examples/$$e.py"; $(PYTHON) examples/$$e.py; done
	$(PYTHON) examples/gelu.py --basic
	$(PYTHON) examples/swiglu.py --dtype float16

test: build
	$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-python:
	AICORE_SIMD=$(CURDIR)/$(BUILD_DIR)/bin/aicore-simd $(PYTHON) -m pytest -q tests/python

# clang-format on every C++ file, clang-tidy on the .cc files changed since LINT_BASE (default:
# the merge-base with origin/main, else HEAD~1). Needs `make build` first; fails on any finding.
lint: deps
	@BUILD_DIR=$(BUILD_DIR) scripts/lint.sh

bench: build
	$(PYTHON) bench/vadd_1m.py
	$(PYTHON) bench/mmad_large.py --repeat 5

# Simulated vs measured times: the Matmul tuning points of hardware-910b.md 7.1 (printed, not
# fitted), then the Add ladder (hardware-910b.md 7), whose last line is "MAPE: X%".
calibrate: build
	$(PYTHON) bench/calibrate_matmul.py
	$(PYTHON) bench/calibrate.py

# docs/isa.md from the instruction table (sim/isa/instructions.def); a test checks it is current.
isa-docs: build
	$(BUILD_DIR)/bin/aicore-isa markdown > docs/isa.md

clean:
	rm -rf $(BUILD_DIR) $(BUILD_DIR).configure.log
