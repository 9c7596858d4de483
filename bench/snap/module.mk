# bench/snap — vftr-snap against the reference's otfaux on a generated
# trace of BENCH_EVENTS events (default 10 M): time with the same options
# (--all, 200 breaks) in one run, and vftr-snap's memory at two trace sizes.
# `make bench` runs it after the OTF benchmark; `make bench-snap` alone.

.PHONY: bench-snap
bench-snap: $(BIN)/vftr-snap $(TEST_DIR)/snap/vftr/snapgen
	$(Q)BUILD=$(BUILD) bash bench/snap/run.sh

BENCH_EXTRA += bench-snap
