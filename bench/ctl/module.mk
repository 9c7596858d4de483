# bench/ctl — the external-control benchmark (issue 8): hook cost with
# control enabled but idle against control off, the slowdown of a program
# queried for stacks and profile 10 times a second, and the query latency;
# PASS or MISS per target.  The workload is bench/ctl/ctlwork.c (fib(N),
# instrumented).  `make bench` runs it (BENCH_EXTRA); `make bench-ctl`
# alone.  The table goes to $(BUILD)/bench/ctl.md.
#
#   make bench-ctl BENCH_CTL_RUNS=3 BENCH_CTL_FIB=34   shorter

BCTL_WORK := $(BUILD)/bench/ctl/ctlwork

$(BCTL_WORK): bench/ctl/ctlwork.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -finstrument-functions -o $@ $<

.PHONY: bench-ctl
bench-ctl: all $(BCTL_WORK)
	$(Q)BUILD=$(BUILD) BENCH_CTL_RUNS=$(BENCH_CTL_RUNS) BENCH_CTL_FIB=$(BENCH_CTL_FIB) \
		bash bench/ctl/run.sh

BENCH_EXTRA += bench-ctl
