# analyzers — vftr's trace analysis tools.  Each tool lives in its own
# directory analyzers/<tool>/ and is linked from its *.c files against lib/:
# analyzers/<tool>/*.c  ->  $(BIN)/<tool>.  A new tool needs no change here.

ANALYZER_TOOLS := $(sort $(notdir $(patsubst %/,%,$(dir $(wildcard analyzers/*/*.c)))))
ANALYZER_BINS  := $(addprefix $(BIN)/,$(ANALYZER_TOOLS))

# Tools print their version with --version (lib/util/opts.h).
$(OBJ)/analyzers/%.o: CPPFLAGS += -DVFTR_VERSION=\"$(VERSION)\"

# A tool that needs more libraries names them in ANALYZER_LDLIBS_<tool>
# (set in its own fragment, e.g. test/snap/module.mk).
#
# $(1) = tool name.  VFTR_LDLIBS is defined later (test/module.mk), which is
# fine: recipes are expanded only when they run.
define analyzer_rule
$(BIN)/$(1): $(patsubst %.c,$(OBJ)/%.o,$(wildcard analyzers/$(1)/*.c)) $(VFTR_REPORT_A) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$$(call say,LD,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(VFTR_REPORT_A) $$(VFTR_MODEL_A) $$(VFTR_UTIL_A) $$(VFTR_VFD_A) $$(OTF_A) $$(ANALYZER_LDLIBS_$(1)) $$(VFTR_LDLIBS)
endef
$(foreach tool,$(ANALYZER_TOOLS),$(eval $(call analyzer_rule,$(tool))))

all: $(ANALYZER_BINS)

# vftr-stats-mpi: vftr-stats with its wait analysis spread over MPI ranks
# (mpi/run_mpi.c in place of run.c), compiled with mpicc (OMPI_CC keeps the
# chosen compiler).  Without mpicc it is not built.
MPICC ?= $(shell command -v mpicc 2>/dev/null)
STATS_MPI := $(BIN)/vftr-stats-mpi
STATS_MPI_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(filter-out analyzers/vftr-stats/run.c,$(wildcard analyzers/vftr-stats/*.c)))
ifneq ($(MPICC),)
$(OBJ)/analyzers/vftr-stats/mpi/run_mpi.o: analyzers/vftr-stats/mpi/run_mpi.c | $(OTF_HEADERS)
	$(call say,MPICC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(CPPFLAGS) -Ianalyzers/vftr-stats $(CFLAGS) -c -o $@ $<

$(STATS_MPI): $(STATS_MPI_OBJ) $(OBJ)/analyzers/vftr-stats/mpi/run_mpi.o $(VFTR_MPI_OBJ) $(VFTR_REPORT_A) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(VFTR_REPORT_A) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A) $(ANALYZER_LDLIBS_vftr-stats) $(VFTR_LDLIBS)

all: $(STATS_MPI)
endif
