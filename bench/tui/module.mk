# bench/tui — vftr-tui on a large trace: time to the first complete frame,
# time of a jump to an arbitrary time, peak RSS; PASS or MISS per target
# (first frame < 100 ms, jump < 10 ms, RSS < 100 MB).  `make bench` runs it
# after the OTF benchmark (BENCH_EXTRA); `make bench-tui` alone.  The
# generated traces are kept in $(BUILD)/bench/tui and reused.
#
#   make bench-tui BENCH_TUI_BIG=1    also the trace ten times larger
#                                     (100 M events, about 1.5 GB on disk)

.PHONY: bench-tui
bench-tui: $(BIN)/vftr-tui $(TUI_GEN_VFTR)
	$(Q)BUILD=$(BUILD) BENCH_TUI_BIG=$(BENCH_TUI_BIG) bash bench/tui/run.sh

BENCH_EXTRA += bench-tui
