# converters — vfd2otf (and vfd2otf-mpi when mpicc is found): a run's .vfd
# files into one OTF trace.  The engine is lib/model/vfdconv; the OTF writer
# and the command line are shared by both tools (converters/vfd2otf/).

CONV_COMMON_SRC := converters/vfd2otf/vfd2otf_cli.c
CONV_COMMON_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(CONV_COMMON_SRC))
VFD2OTF := $(BIN)/vfd2otf

$(OBJ)/converters/%.o: CPPFLAGS += -DVFTR_VERSION=\"$(VERSION)\" -Iconverters/vfd2otf

$(VFD2OTF): $(OBJ)/converters/vfd2otf/main.o $(CONV_COMMON_OBJ) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A) $(VFTR_LDLIBS)

all: $(VFD2OTF)

# vfd2otf-mpi: the same conversion over MPI ranks, compiled with mpicc
# (OMPI_CC keeps the chosen compiler).  Without mpicc it is not built.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
VFD2OTF_MPI := $(BIN)/vfd2otf-mpi
ifneq ($(MPICC),)
$(OBJ)/converters/vfd2otf-mpi/main.o: converters/vfd2otf-mpi/main.c | $(OTF_HEADERS)
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(VFD2OTF_MPI): $(OBJ)/converters/vfd2otf-mpi/main.o $(VFTR_MPI_OBJ) $(CONV_COMMON_OBJ) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A) $(VFTR_LDLIBS)

all: $(VFD2OTF_MPI)
endif

# vftr-convert: any input vftr reads to any format it writes (lib/model's
# source and sink).
VFTR_CONVERT := $(BIN)/vftr-convert

$(VFTR_CONVERT): $(OBJ)/converters/vftr-convert/main.o $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A) $(VFTR_LDLIBS)

all: $(VFTR_CONVERT)
