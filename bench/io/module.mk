# bench/io — the file I/O benchmark: ns that capture adds to an interposed
# POSIX call (lseek to the current position: a cheap system call), on a descriptor
# capture follows (one IO record per call) and on one it does not (passed
# straight on), against the same program without vftr; PASS or MISS against
# the target of issue 20 (< 100 ns above the call).  `make bench` runs it
# (BENCH_EXTRA); `make bench-io` alone.  The table goes to
# $(BUILD)/bench/io.md.
#
#   make bench-io BENCH_IO_CALLS=10000 BENCH_IO_BLOCKS=20 BENCH_IO_RUNS=3

BIO_DIR := $(BUILD)/bench/io

$(BIO_DIR)/bioprog: bench/io/bioprog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -o $@ $<

.PHONY: bench-io
bench-io: all $(BIO_DIR)/bioprog
	$(Q)BUILD=$(BUILD) BENCH_IO_CALLS=$(BENCH_IO_CALLS) BENCH_IO_BLOCKS=$(BENCH_IO_BLOCKS) \
		BENCH_IO_RUNS=$(BENCH_IO_RUNS) bash bench/io/run.sh

BENCH_EXTRA += bench-io
