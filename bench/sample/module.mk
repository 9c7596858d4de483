# bench/sample — the sampling benchmark (issue 20): what statistical
# call-stack sampling at 1 ms costs a long run.  bench/sample/run.sh says
# exactly what is measured.  Workload: bench/sample/smpwork.c.  `make bench`
# runs it (BENCH_EXTRA); `make bench-sample` alone.  The table goes to
# $(BUILD)/bench/sample.md.
#
#   make bench-sample BENCH_SAMPLE_ROUNDS=3   fewer rounds (5 by default)

BSMP_WORK := $(BUILD)/bench/sample/smpwork

$(BSMP_WORK): bench/sample/smpwork.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -o $@ $<

.PHONY: bench-sample
bench-sample: $(BIN)/vftr-run $(CAPTURE_SO) $(BSMP_WORK)
	$(Q)BUILD=$(BUILD) BENCH_SAMPLE_ROUNDS=$(BENCH_SAMPLE_ROUNDS) bash bench/sample/run.sh

BENCH_EXTRA += bench-sample
