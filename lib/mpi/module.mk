# lib/mpi — code the MPI tools share (vfd2otf-mpi, vftr-stats-mpi), compiled
# with mpicc (OMPI_CC keeps the chosen compiler) and linked as objects into
# those tools only: the libraries stay free of MPI.  Without mpicc nothing
# here is built.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
VFTR_MPI_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(wildcard lib/mpi/*.c))
ifneq ($(MPICC),)
$(OBJ)/lib/mpi/%.o: lib/mpi/%.c | $(OTF_HEADERS)
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
endif
