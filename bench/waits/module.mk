# bench/waits — `make bench-waits` (also run by `make bench`): the wait
# analysis (vftr-stats --waits, --critical-path, --delays) against the plain
# function profile on a >= 10 M-event run with a message and a collective
# every few calls (test/waits/mkwaits big), and its memory at two run
# lengths.  See bench/waits/run.sh.

.PHONY: bench-waits
bench-waits: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)/vftr-stats $(WAITS_MKWAITS)
	$(Q)BUILD=$(BUILD) bash bench/waits/run.sh

BENCH_EXTRA += bench-waits
