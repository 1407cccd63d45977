# aggnet: the single entry point.  `make help` lists the targets.
#
#   make demo    the main job: 4 host processes barrier through the virtual hub
#   make test    every Catch2 suite (CTest), with totals; non-zero on failure
#
# Every target depends on `deps`, which installs what is missing (idempotent).

BUILD    ?= build
JOBS     ?= 2
CMAKE    ?= cmake
CTEST    ?= ctest
VERILATOR ?= verilator

RTL_MODULES := $(shell find rtl fw -name '*.v' | sort)
LINT_FLAGS  := --lint-only -Wall -Irtl/papers -Irtl/link -y rtl/common -y rtl/papers -y rtl/link rtl/lint.vlt -y rtl/hub

.PHONY: help deps build test test-fresh lint gen demo bench clean
.DEFAULT_GOAL := help

help: ## this list
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z_-]+:.*## /{printf "  make %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  variables: BUILD=$(BUILD) JOBS=$(JOBS) BOARD=icestick|icebreaker|hx8k|ulx3s"
	@echo "  tests: AGGNET_SEED=<n>|random, AGGNET_TRACE=<dir> (FST waveforms), AGGNET_CYCLES_SCALE=<x>"

deps: ## install missing tools (Debian + PyPI); quiet when all are present
	@bash tools/deps.sh

$(BUILD)/CMakeCache.txt: CMakeLists.txt | deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: deps $(BUILD)/CMakeCache.txt ## build the Verilated models, libaggnet, tools and tests
	@$(CMAKE) --build $(BUILD) -j $(JOBS) -- --no-print-directory 2>&1 | grep -v -E '^\[ *[0-9]+%\]|^make\[|Scanning|Built target' || true
	@$(CMAKE) --build $(BUILD) -j $(JOBS) >/dev/null

test: build ## run every test suite (fixed seeds) and print the totals
	@cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS)

test-fresh: build ## the random suites once more with a fresh seed (printed)
	@cd $(BUILD) && AGGNET_SEED=random $(CTEST) --output-on-failure -j $(JOBS) -R 'papers|protocol|sync2|faults|link|serial|hub'

gen: ## regenerate register-map files from tools/regmap.py
	@python3 tools/regmap.py
	@python3 tools/linkgen.py

lint: deps ## verilator -Wall on every RTL module as its own top; generated files up to date
	@python3 tools/regmap.py --check
	@python3 tools/pincheck.py
	@python3 tools/linkgen.py --check
	@set -e; for f in $(RTL_MODULES); do \
	  top=$$(basename $$f .v); \
	  $(VERILATOR) $(LINT_FLAGS) $$f --top-module $$top; \
	  echo "lint ok: $$f"; \
	done

demo: build ## 4 host processes barrier, exchange bits and interrupt through the virtual hub
	@bash tools/demo.sh $(BUILD)

bench: build bench-hw ## hub cycles, Fmax/LUTs, host round trips: tables + CSV + PNG in $(BUILD)/bench
	@mkdir -p $(BUILD)/bench
	@$(BUILD)/bench_papers_cycles $(BUILD)/bench/cycles.csv
	@$(BUILD)/aggnet_bench_host $(BUILD)/bench/host.csv
	@$(BUILD)/aggnet_bench_load $(BUILD)/bench/load.csv
	@$(BUILD)/bench_link $(BUILD)/bench/link.csv
	@python3 tools/bench_report.py $(BUILD)/bench

clean: ## remove the build directory
	rm -rf $(BUILD)

-include mk/hw.mk
