# bench/measure — measurement control on an example (bench/measure/mcprog.c:
# a smoother whose tiny weight() is called for every point, halo exchange and
# an MPI_Allreduce per sweep, on BENCH_MEASURE_NP ranks, 1 by default): its overhead against the plain
# program with the full trace, throttling as it comes, and the filter that
# vftr-score -g writes from a profile-only run; medians of paired rounds,
# PASS or MISS against the aims of share/doc/capture.md.  `make bench` runs
# it (BENCH_EXTRA); `make bench-measure` alone.  The table goes to
# $(BUILD)/bench/measure.md.  Needs mpicc.
BMC_DIR := $(BUILD)/bench/measure
BENCH_MEASURE_RUNS ?= 5

ifneq ($(strip $(MPICC)),)
$(BMC_DIR)/mc_plain: bench/measure/mcprog.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -Wno-missing-prototypes -o $@ $<

$(BMC_DIR)/mc_instr: bench/measure/mcprog.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g -finstrument-functions $(WARN) \
		-Wno-missing-prototypes -o $@ $<
# the build for instrument.patchable (capture/sled.c): nop sleds, no hooks
$(BMC_DIR)/mc_sled: bench/measure/mcprog.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 $(WARN) \
		-Wno-missing-prototypes -o $@ $<
BMC_BINS := $(BMC_DIR)/mc_plain $(BMC_DIR)/mc_instr $(BMC_DIR)/mc_sled
endif

.PHONY: bench-measure
bench-measure: all $(BMC_BINS) $(BCAP_DIR)/libbc_empty.so
	$(Q)BUILD=$(BUILD) BENCH_MEASURE_RUNS=$(BENCH_MEASURE_RUNS) CC=$(CC) MPICC="$(MPICC)" \
		bash bench/measure/run.sh

BENCH_EXTRA += bench-measure
