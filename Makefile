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
# bash for `set -o pipefail`: a build whose output is filtered still fails
SHELL    := /bin/bash

# The engine registry: tools/engines.py reads rtl/*/manifest.json (one per
# component, docs/engines.md) and writes make variables: ENGINES, ENGINE_RTL
# (every RTL source), ENGINE_INC_FLAGS, ENGINE_<name>_RTL and
# ENGINE_<name>_LINT (a component's sources and the -I/-y flags of it and its
# dependencies), ENGINE_LINT_ALL, ENGINE_GEN_CMDS / ENGINE_CHECK_CMDS (the
# register-map generators).  Nothing below lists an engine.  The folders are
# prerequisites so that a file added to or removed from rtl/ regenerates it.
# (help, clean and deps do without it, so they work before python3 is
# installed and with a broken manifest.)
ENGINES_MK := $(BUILD)/engines.mk
$(ENGINES_MK): tools/engines.py rtl $(wildcard rtl/*/) $(wildcard rtl/*/manifest.json)
	@command -v python3 >/dev/null 2>&1 || bash tools/deps.sh
	@mkdir -p $(dir $@)
	@# (a temporary file of this make's own: two makes in one tree, e.g. lint and
	@# build, may regenerate it at once)
	@python3 tools/engines.py make > $@.tmp$$$$ && mv $@.tmp$$$$ $@
ifneq ($(filter-out help clean deps,$(or $(MAKECMDGOALS),help)),)
include $(ENGINES_MK)
endif
FW_TOPS := $(sort $(wildcard fw/*/top.v))
LINT := $(VERILATOR) --lint-only -Wall rtl/lint.vlt

.PHONY: help deps build test test-fresh lint gen engine-selftest demo bench clean
.DEFAULT_GOAL := help

help: ## this list
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z_-]+:.*## /{printf "  make %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  variables: BUILD=$(BUILD) JOBS=$(JOBS) BOARD=icestick|icebreaker|hx8k|ulx3s"
	@echo "  tests: AGGNET_SEED=<n>|random, AGGNET_TRACE=<dir> (FST waveforms), AGGNET_CYCLES_SCALE=<x>"

deps: ## install missing tools (Debian + PyPI); quiet when all are present
	@bash tools/deps.sh

$(BUILD)/CMakeCache.txt: CMakeLists.txt | deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

# (the progress lines are filtered out; grep's own status 1, "nothing left", is not a failure)
build: deps $(BUILD)/CMakeCache.txt ## build the Verilated models, libaggnet, tools and tests
	@set -o pipefail; $(CMAKE) --build $(BUILD) -j $(JOBS) -- --no-print-directory 2>&1 | \
	  { grep -v -E '^\[ *[0-9]+%\]|^make\[|Scanning|Built target' || [ $$? = 1 ]; }

test: build ## run every test suite (fixed seeds) and print the totals
	@cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS)

test-fresh: build ## the random suites once more with a fresh seed (printed)
	@cd $(BUILD) && AGGNET_SEED=random $(CTEST) --output-on-failure -j $(JOBS) -L seeded

gen: ## regenerate the generated files (register maps, link tables) of every manifest
	$(ENGINE_GEN_CMDS)

lint: deps ## manifests valid; generated files up to date; verilator -Wall on every RTL module and board top
	@python3 tools/engines.py selftest
	@python3 tools/verilate.py selftest
	@bash tools/make_selftest.sh
	@python3 tools/flash.py --selftest
	@python3 tools/engines.py check
	$(ENGINE_CHECK_CMDS)
	@python3 tools/pincheck.py
	@python3 tools/figures.py check
	@set -e; $(foreach e,$(ENGINES),for f in $(ENGINE_$(e)_RTL); do \
	  $(LINT) $(ENGINE_$(e)_LINT) $$f --top-module $$(basename $$f .v); \
	  echo "lint ok: $$f"; \
	done;) \
	for f in $(FW_TOPS); do \
	  $(LINT) $(ENGINE_LINT_ALL) $$f --top-module $$(basename $$f .v); \
	  echo "lint ok: $$f"; \
	done

engine-selftest: deps ## add a throw-away engine (a scratch copy) in a copy of the tree: one folder, one test, one window row
	@python3 tools/engine_selftest.py --jobs $(JOBS)

# The demo builds only what tools/demo.sh runs, not the tests' models:
# aggnet-sim with the three hub models it picks (--pes 4 --engines papers,
# then cop, then scalar: BUILD/models/*.so), the PE program and the CLI
DEMO_TARGETS := aggnet-sim model_hub_papers_n4 model_hub_cop_n4 model_hub_scalar_n4 aggnet_demo aggnet-cli
demo: deps $(BUILD)/CMakeCache.txt ## 4 host processes barrier, exchange bits and interrupt through the virtual hub
	@set -o pipefail; $(CMAKE) --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS) -- --no-print-directory 2>&1 | \
	  { grep -v -E '^\[ *[0-9]+%\]|^make\[|Scanning|Built target' || [ $$? = 1 ]; }
	@bash tools/demo.sh $(BUILD)

bench: build ## cycle and host benchmarks: tables + CSV + PNG in build/bench (no place and route: bench-hw)
	@mkdir -p $(BUILD)/bench
	@set -e; for b in $(ENGINE_BENCHES); do $(BUILD)/$$b $(BUILD)/bench/$$b.csv; done
	@$(BUILD)/aggnet_bench_host $(BUILD)/bench/host.csv
	@$(BUILD)/aggnet_bench_load $(BUILD)/bench/load.csv
	@$(BUILD)/aggnet_bench_sim $(BUILD)/bench/sim.csv
	@$(BUILD)/bench_link $(BUILD)/bench/link.csv
	@python3 tools/bench_report.py $(BUILD)/bench

clean: ## remove the build directory
	rm -rf $(BUILD)

-include mk/hw.mk
