# test/omp — OpenMP programs that count what they do, run under vftr-run
# by test/integration/omp_*.sh, and ompcheck, the .vfd reader those scripts
# compare them with.  Built into $(BUILD)/test/omp/.
#
# The programs need an OpenMP runtime with OMPT, i.e. clang -fopenmp (LLVM's
# libomp); they are built with clang whatever CC is, and only when clang
# and omp.h are found.  Like test/capture's programs they are instrumented
# (-finstrument-functions) and get the capture library from vftr-run's
# LD_PRELOAD.  Sanitizer builds leave them unsanitized: libomp is not built
# for the sanitizers (vftr-run preloads the runtime the library needs).

OMPTEST_DIR   := $(BUILD)/test/omp
OMPTEST_CLANG := $(or $(filter clang%,$(notdir $(CC))),$(shell command -v clang 2>/dev/null))
OMPTEST_OK    := $(if $(OMPTEST_CLANG),$(shell echo '\#include <omp.h>' | \
                   $(OMPTEST_CLANG) -fopenmp -E -x c - >/dev/null 2>&1 && echo yes))
OMPTEST_FLAGS := -D_GNU_SOURCE -std=c11 -O2 -g -fopenmp -finstrument-functions $(WARN)

# GCC's libgomp has no OMPT: the same program built with gcc -fopenmp
# shows that capture leaves it alone (no regions, no harm).
OMPTEST_GCC   := $(shell command -v gcc 2>/dev/null)
OMPTEST_PROGS := omp_count omp_idle omp_nest
OMPTEST_BINS  := $(OMPTEST_DIR)/ompcheck \
                 $(if $(OMPTEST_OK),$(addprefix $(OMPTEST_DIR)/,$(OMPTEST_PROGS)) \
                   $(OMPTEST_DIR)/omp_count_plain) \
                 $(if $(OMPTEST_GCC),$(OMPTEST_DIR)/omp_count_gomp)

$(OMPTEST_DIR)/omp_count_gomp: test/omp/omp_count.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(OMPTEST_GCC) $(OMPTEST_FLAGS) -finstrument-functions-exclude-file-list=/usr/include \
		-o $@ $<

$(OMPTEST_DIR)/omp_%: test/omp/omp_%.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(OMPTEST_CLANG) $(OMPTEST_FLAGS) -o $@ $<

# The same program without -finstrument-functions: no hook ever runs, the
# OpenMP tool is what initializes capture.
$(OMPTEST_DIR)/omp_count_plain: test/omp/omp_count.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(OMPTEST_CLANG) $(filter-out -finstrument-functions,$(OMPTEST_FLAGS)) -o $@ $<

# MPI + OpenMP (the hybrid test): Open MPI's mpicc with clang underneath.
OMPTEST_MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(and $(OMPTEST_OK),$(OMPTEST_MPICC)),)
OMPTEST_BINS  += $(OMPTEST_DIR)/omp_hybrid
$(OMPTEST_DIR)/omp_hybrid: test/omp/omp_hybrid.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(OMPTEST_CLANG) $(OMPTEST_MPICC) $(OMPTEST_FLAGS) -o $@ $<
endif

# ompcheck is a tool of the tests, not an instrumented program.
$(OMPTEST_DIR)/ompcheck: $(OBJ)/test/omp/ompcheck.o $(VFTR_VFD_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A)

TEST_PROGRAMS += $(OMPTEST_BINS)

.PHONY: omp-tests
omp-tests: $(OMPTEST_BINS)

# The line resolver's unit suite (test/unit/test_capture_ompt_lines.c)
# dlopens a small library at a run-time address: one built with -g, one
# without debug information.  Plain CC, no sanitizer (dlopened by the suite).
OMPTEST_LINES := $(OMPTEST_DIR)/liblines.so $(OMPTEST_DIR)/liblines_nodebug.so
$(OMPTEST_DIR)/liblines.so: test/omp/lines_lib.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -O2 -g $(WARN) -fPIC -shared -o $@ $<
$(OMPTEST_DIR)/liblines_nodebug.so: test/omp/lines_lib.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -O2 -g0 $(WARN) -fPIC -shared -o $@ $<
$(TEST_DIR)/unit/test_capture_ompt_lines: | $(OMPTEST_LINES)
$(OBJ)/test/unit/test_capture_ompt_lines.o: CPPFLAGS += -DLINES_DIR=\"$(abspath $(OMPTEST_DIR))\"
TEST_PROGRAMS += $(OMPTEST_LINES)
