# bench/capture — the capture benchmark: ns per instrumented call on fib(32)
# (7 M calls) and on a wide call tree, for the uninstrumented program, empty
# hooks, the floor (rdtsc at enter and exit), vftr profile-only, vftr full
# trace and `uftrace record`; bytes per event and finalization time; PASS or
# MISS per target.  `make bench` runs it after the OTF benchmark
# (BENCH_EXTRA); `make bench-capture` alone.  The table goes to
# $(BUILD)/bench/capture.md.
#
#   make bench-capture BENCH_CAPTURE_RUNS=3   fewer rounds (best of 7 by default)

BCAP_DIR  := $(BUILD)/bench/capture
BCAP_BINS := $(BCAP_DIR)/bc_plain $(BCAP_DIR)/bc_instr $(BCAP_DIR)/libbc_empty.so \
             $(BCAP_DIR)/libbc_floor.so
BCAP_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g $(WARN)

$(BCAP_DIR)/bc_plain: bench/capture/bcprog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BCAP_CFLAGS) -o $@ $<

$(BCAP_DIR)/bc_instr: bench/capture/bcprog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BCAP_CFLAGS) -finstrument-functions -o $@ $<

$(BCAP_DIR)/libbc_empty.so: bench/capture/bchooks.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BCAP_CFLAGS) -DBC_EMPTY -fPIC -shared -o $@ $<

$(BCAP_DIR)/libbc_floor.so: bench/capture/bchooks.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BCAP_CFLAGS) -fPIC -shared -o $@ $<

.PHONY: bench-capture
bench-capture: all $(BCAP_BINS)
	$(Q)BUILD=$(BUILD) BENCH_CAPTURE_RUNS=$(BENCH_CAPTURE_RUNS) bash bench/capture/run.sh

BENCH_EXTRA += bench-capture
