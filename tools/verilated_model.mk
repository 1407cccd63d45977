# tools/verilated_model.mk: a Verilated model's archive from two C++ units.
# tools/verilate.py runs `make -f PREFIX.mk -f tools/verilated_model.mk
# PREFIX__model.a` in the model's obj/ folder, after writing
#   PREFIX__hot.cpp   #includes of the code that runs every simulated cycle
#                     (Verilator's fast classes and support files)
#   PREFIX__cold.cpp  #includes of the rest: the __Slow files (constructors,
#                     initial and settle code, the trace's declarations) and
#                     the __Trace__N files (only run while a waveform is dumped);
#                     empty for a small model (Verilator's VM_PARALLEL_BUILDS = 0)
# PREFIX.mk (which includes Verilator's verilated.mk) gives CXX, CXXFLAGS,
# CPPFLAGS (with the model's -CFLAGS and -MMD), AR and OBJCACHE.  One unit
# each instead of one per generated file: every file of a model includes
# the same Verilator headers, and parsing them was about half the compile
# time of a split model.  COLD_OPT (tools/verilate.py) comes last on the
# cold unit's line, so it wins over the model's -O flag.
COLD_OPT ?= -O0
AGG_OBJS := $(VM_PREFIX)__hot.o $(VM_PREFIX)__cold.o

$(VM_PREFIX)__hot.o: $(VM_PREFIX)__hot.cpp
	$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) -MP -c -o $@ $<

$(VM_PREFIX)__cold.o: $(VM_PREFIX)__cold.cpp
	$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) -MP $(COLD_OPT) -c -o $@ $<

$(VM_PREFIX)__model.a: $(AGG_OBJS)
	rm -f $@
	$(AR) -rcs $@ $^

-include $(AGG_OBJS:.o=.d)
