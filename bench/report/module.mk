# bench/report — `make bench-report` (also run by `make bench`): vftr-report
# against vftr-stats on the same 10 M-event traces (time and page size).
# See bench/report/run.sh.

.PHONY: bench-report
bench-report: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/vftr-report $(BIN)/vftr-stats \
		$(BUILD)/test/stats/ref/stats_gen $(BENCH_VFTR)
	$(Q)BUILD=$(BUILD) bash bench/report/run.sh

BENCH_EXTRA += bench-report
