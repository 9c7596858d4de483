# bench/mpi — the MPI wrappers' own cost: ns per MPI_Send to MPI_PROC_NULL
# (one rank) and per call of a 2-rank ping-pong bound to separate cores
# (`mpirun --bind-to core`), each without vftr and under vftr-run (full
# trace), best of BENCH_MPI_RUNS interleaved runs; target: under 100 ns added per MPI
# call; PASS or MISS.  `make bench` runs it (BENCH_EXTRA); `make bench-mpi`
# alone.  The table goes to $(BUILD)/bench/mpi.md.  Needs mpicc.
BENCH_MPI_RUNS ?= 5

.PHONY: bench-mpi
bench-mpi: $(BIN)/vftr-run $(CAPTURE_SO) $(CAPMPI_SO) $(if $(strip $(MPICC)),$(BUILD)/test/mpi/mpi_pingpong)
	$(Q)BUILD=$(BUILD) BENCH_MPI_RUNS=$(BENCH_MPI_RUNS) bash bench/mpi/run.sh

BENCH_EXTRA += bench-mpi
