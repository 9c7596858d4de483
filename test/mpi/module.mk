# test/mpi — MPI programs that write down what they send, receive and take
# part in (mpitest.h), run under `mpirun ... vftr-run` by
# test/integration/mpi_*.sh, and vfdmpi, the reader of their .vfd files.
# Built into $(BUILD)/test/mpi/ when mpicc is found (capture/mpi/module.mk
# sets MPICC); the Fortran program when mpif90 is found too.  In a sanitizer
# build the programs carry the sanitizer, as test/capture's do.

MPITEST_DIR  := $(BUILD)/test/mpi
MPIFC        ?= $(shell command -v mpif90 2>/dev/null)
MPITEST_SAN  := $(filter -fsanitize%,$(CFLAGS)) $(if $(SANITIZE),-fno-omit-frame-pointer)
MPITEST_C    := mpi_p2p mpi_coll mpi_threads mpi_pingpong mpi_wait mpi_io mpi_comms mpi_rma mpi_pcoll mpi_rma_sync \
                mpi_rma_threads

# vfdmpi reads files; it needs no MPI.
$(MPITEST_DIR)/vfdmpi: $(OBJ)/test/mpi/vfdmpi.o $(VFTR_VFD_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A)

ifneq ($(strip $(MPICC)),)
# The compiler of the build under Open MPI's wrapper (OMPI_CC), so that
# sanitizer flags match; mpi.h is included as a system header.
$(MPITEST_DIR)/mpi_%: test/mpi/mpi_%.c test/mpi/mpitest.h
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g -finstrument-functions $(MPITEST_SAN) \
		$(CAPMPI_INC) $(WARN) -Wno-missing-prototypes -Ilib -o $@ $< -lpthread

$(MPITEST_DIR)/mpi_fortran: test/mpi/mpi_fortran.f90
	$(call say,MPIFC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPIFC) -O1 -g -finstrument-functions $(MPITEST_SAN) -J $(@D) -o $@ $<

# The mpi_f08 bindings (test/integration/mpi_f08.sh).
$(MPITEST_DIR)/mpi_f08: test/mpi/mpi_f08.f90
	$(call say,MPIFC,$@)
	$(Q)mkdir -p $(@D)/f08mod
	$(Q)$(MPIFC) -O1 -g -finstrument-functions $(MPITEST_SAN) -J $(@D)/f08mod -o $@ $<

# The persistent collectives of Open MPI's pcollreq extension in Fortran
# (mpi_pcoll.sh).  An MPI without the extension (no module mpi_ext with
# MPIX_*_INIT) gets a stand-in that says so and exits 77, as mpi_pcoll does.
$(MPITEST_DIR)/mpi_pcoll_f: test/mpi/mpi_pcoll_f.f90
	$(call say,MPIFC,$@)
	$(Q)mkdir -p $(@D)/pcollmod
	$(Q)$(MPIFC) -O1 -g -finstrument-functions $(MPITEST_SAN) -J $(@D)/pcollmod -o $@ $< 2>$@.err || \
		{ printf '#!/bin/sh\necho "mpi_pcoll_f: not built: no MPIX_*_INIT in Fortran (%s)" >&2\nexit 77\n' \
			$@.err >$@ && chmod +x $@; }

# The same without -finstrument-functions: all capture sees of them is
# their MPI calls (mpi_nohooks.sh).
$(MPITEST_DIR)/nohooks_c: test/mpi/nohooks.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g $(MPITEST_SAN) $(CAPMPI_INC) \
		$(WARN) -Wno-missing-prototypes -o $@ $<

# Statistical sampling of an MPI program without hooks (mpi_sample.sh).
$(MPITEST_DIR)/sample_mpi: test/mpi/sample_mpi.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g $(MPITEST_SAN) $(CAPMPI_INC) \
		$(WARN) -Wno-missing-prototypes -o $@ $<

$(MPITEST_DIR)/nohooks_f: test/mpi/nohooks.f90
	$(call say,MPIFC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPIFC) -O1 -g $(MPITEST_SAN) -o $@ $<

MPITEST_BINS := $(addprefix $(MPITEST_DIR)/,$(MPITEST_C) vfdmpi nohooks_c sample_mpi) \
                $(if $(strip $(MPIFC)),$(MPITEST_DIR)/mpi_fortran $(MPITEST_DIR)/mpi_f08 \
                                        $(MPITEST_DIR)/nohooks_f $(MPITEST_DIR)/mpi_pcoll_f)
TEST_PROGRAMS += $(MPITEST_BINS) $(CAPMPI_SO) $(CAPMPI_GEN)/wrappers.txt
else
MPITEST_BINS := $(MPITEST_DIR)/vfdmpi
TEST_PROGRAMS += $(MPITEST_BINS) $(CAPMPI_SO)
endif

.PHONY: mpi-tests
mpi-tests: $(MPITEST_BINS) $(CAPMPI_SO) $(BIN)/vftr-run
