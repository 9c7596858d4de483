# bench/ctl — the external-control benchmark (issue 8): hook cost with
# control enabled but idle against control off (separate runs), the
# slowdown of a benchmark queried for stacks and profile 10 times a second
# (one process, segments queried or not, alternating), the same amplified to
# tens of thousands of queries a second, the shadow thread's CPU per query
# and the query latency; PASS or MISS per target.  bench/ctl/run.sh says
# exactly what is measured.  Workload: bench/ctl/ctlwork.c (fib, instrumented);
# query client: bench/ctl/client.py.  `make bench` runs it (BENCH_EXTRA);
# `make bench-ctl` alone.  The table goes to $(BUILD)/bench/ctl.md.
#
#   make bench-ctl BENCH_CTL_ROUNDS=4 BENCH_CTL_BLOCKS=10   shorter

BCTL_WORK := $(BUILD)/bench/ctl/ctlwork

$(BCTL_WORK): bench/ctl/ctlwork.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -finstrument-functions -o $@ $<

.PHONY: bench-ctl
bench-ctl: $(BIN)/vftr-run $(CAPTURE_SO) $(BCTL_WORK)
	$(Q)BUILD=$(BUILD) BENCH_CTL_ROUNDS=$(BENCH_CTL_ROUNDS) BENCH_CTL_FIB=$(BENCH_CTL_FIB) \
		BENCH_CTL_BLOCKS=$(BENCH_CTL_BLOCKS) BENCH_CTL_SEG=$(BENCH_CTL_SEG) \
		BENCH_CTL_FLOOD_BLOCKS=$(BENCH_CTL_FLOOD_BLOCKS) bash bench/ctl/run.sh

BENCH_EXTRA += bench-ctl
