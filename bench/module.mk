# bench — the OTF benchmark: one source (bench/otfbench.c), built against the
# reference OTF and against libvftrotf, run by bench/run.sh on the same traces.
#
#   make bench                       both libraries, 10 M events
#   make bench BENCH_EVENTS=1000000  smaller run
#   make bench BENCH_SELFTEST=1      reference on both sides (needs no vftr build)
#
# The exit status is 0 even when a target is missed (the table says so); it is
# non-zero only when a phase failed to run or the readers disagree.

BENCH_OUT  := $(BUILD)/bench
BENCH_REF  := $(BENCH_OUT)/ref/otfbench
BENCH_VFTR := $(BENCH_OUT)/vftr/otfbench

$(BENCH_VFTR): bench/otfbench.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -DOTFBENCH_LIB='"vftr"' -I$(OTF_INC_DIR) -std=c11 \
		$(OPT) $(WARN) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

# As for test/compat: the reference headers do not pass vftr's warning set.
$(BENCH_REF): bench/otfbench.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -DOTFBENCH_LIB='"reference"' $(REF_OTF_CFLAGS) \
		-std=c11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

ifeq ($(BENCH_SELFTEST),1)
  BENCH_BUILD := $(BENCH_REF)
else
  BENCH_BUILD := all $(BENCH_REF) $(BENCH_VFTR)
endif

# Other benchmarks (bench/<name>/module.mk) add their targets to BENCH_EXTRA;
# `make bench` runs them after the OTF benchmark.
BENCH_EXTRA :=
-include $(wildcard bench/*/module.mk)

bench: deps
	$(Q)$(MAKE) --no-print-directory $(BENCH_BUILD)
	$(Q)BUILD=$(BUILD) BENCH_SELFTEST=$(BENCH_SELFTEST) bash bench/run.sh
	$(Q)$(foreach b,$(BENCH_EXTRA),$(MAKE) --no-print-directory $(b) &&) true
