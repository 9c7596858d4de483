# bench — benchmarks against the reference OTF (filled in with the benchmark).
bench:
	@echo "bench: not built yet" >&2; exit 1
