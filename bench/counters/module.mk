# bench/counters — the counter benchmark (issue 20): what a counter read at a
# region boundary costs.  bench/counters/run.sh says exactly what is
# measured.  Workload: bench/counters/ctrwork.c.  `make bench` runs it
# (BENCH_EXTRA); `make bench-counters` alone.  The table goes to
# $(BUILD)/bench/counters.md.
#
#   make bench-counters BENCH_COUNTERS_ROUNDS=3   fewer rounds (5 by default)

BCTR_WORK := $(BUILD)/bench/counters/ctrwork

$(BCTR_WORK): bench/counters/ctrwork.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -finstrument-functions -o $@ $<

.PHONY: bench-counters
bench-counters: $(BIN)/vftr-run $(CAPTURE_SO) $(BCTR_WORK)
	$(Q)BUILD=$(BUILD) BENCH_COUNTERS_ROUNDS=$(BENCH_COUNTERS_ROUNDS) bash bench/counters/run.sh

BENCH_EXTRA += bench-counters
