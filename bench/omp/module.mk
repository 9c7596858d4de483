# bench/omp — cost of vftr's OpenMP tool: ns per empty parallel region and
# per barrier with LLVM's libomp, plain, under vftr-run with the tool off
# (OMP_TOOL=disabled), under vftr-run with the tool recording, and with a
# null tool (same callbacks, empty); compared with a guide, not a target
# (bench/omp/run.sh says which and why).  `make
# bench` runs it (BENCH_EXTRA); `make bench-omp` alone.  The table goes to
# $(BUILD)/bench/omp.md.
#
#   make bench-omp BENCH_OMP_N=5000 BENCH_OMP_RUNS=5 BENCH_OMP_ROUNDS=5

BOMP_DIR := $(BUILD)/bench/omp
BOMP_CC  := $(or $(filter clang%,$(notdir $(CC))),$(shell command -v clang 2>/dev/null))

$(BOMP_DIR)/ompbench: bench/omp/ompbench.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BOMP_CC) -std=c11 -D_GNU_SOURCE -O2 -g -fopenmp $(WARN) -o $@ $<

# a tool with vftr's callbacks that does nothing (the runtime's own share)
$(BOMP_DIR)/libnulltool.so: bench/omp/nulltool.c capture/ompt_events.def
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BOMP_CC) -std=c11 -D_GNU_SOURCE -O2 -fPIC -shared -fopenmp $(WARN) -Icapture -o $@ $<

.PHONY: bench-omp
bench-omp: all $(BOMP_DIR)/ompbench $(BOMP_DIR)/libnulltool.so $(BUILD)/test/omp/ompcheck
	$(Q)BUILD=$(BUILD) BENCH_OMP_N=$(BENCH_OMP_N) BENCH_OMP_RUNS=$(BENCH_OMP_RUNS) \
		BENCH_OMP_ROUNDS=$(BENCH_OMP_ROUNDS) bash bench/omp/run.sh

BENCH_EXTRA += bench-omp
