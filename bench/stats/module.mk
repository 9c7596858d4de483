# bench/stats — `make bench-stats` (also run by `make bench`): vftr-stats
# against the reference's otfprofile on a generated >= 10 M-event trace,
# memory at two trace sizes, and a window profile from summary records with
# the bytes it reads.  See bench/stats/run.sh.

.PHONY: bench-stats
bench-stats: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/vftr-stats $(BUILD)/test/stats/ref/stats_gen
	$(Q)BUILD=$(BUILD) bash bench/stats/run.sh

BENCH_EXTRA += bench-stats
