# test/waits — the wait analysis's test input (test/integration/waits_*.sh,
# bench/waits): mkwaits writes .vfd runs with known waits through lib/vfd's
# writer.  The MPI programs with injected delays live in test/mpi
# (mpi_waits.c) and test/omp (omp_waits.c).

WAITS_TEST_DIR := $(TEST_DIR)/waits
WAITS_MKWAITS  := $(WAITS_TEST_DIR)/mkwaits

$(WAITS_MKWAITS): $(OBJ)/test/waits/mkwaits.o $(VFTR_VFD_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A) $(VFTR_LDLIBS)

TEST_PROGRAMS += $(WAITS_MKWAITS)
