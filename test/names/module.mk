# test/names — programs whose function names test/integration/names_golden.sh
# compares with the golden lists of test/data/names/, each built with every
# compiler of its language that is installed: gcc and clang (C, OpenMP), g++
# and clang++ (C++), gfortran (Fortran, with and without -g).  Built into
# $(BUILD)/test/names/.  Instrumented (-finstrument-functions; gcc and g++
# leave the system headers alone) and, like test/omp's programs, built
# without the sanitizers: two compilers' sanitizer runtimes do not mix, and
# vftr-run preloads the one the library needs.

NAMES_DIR   := $(BUILD)/test/names
NAMES_GCC   := $(shell command -v gcc 2>/dev/null)
NAMES_GXX   := $(shell command -v g++ 2>/dev/null)
NAMES_CLANG := $(shell command -v clang 2>/dev/null)
NAMES_CLANGXX := $(shell command -v clang++ 2>/dev/null)
NAMES_FC    := $(shell command -v gfortran 2>/dev/null)
NAMES_GNU   := -finstrument-functions -finstrument-functions-exclude-file-list=/usr/include
NAMES_FLAGS := -O2 -g -D_GNU_SOURCE

NAMES_BINS := $(if $(NAMES_GCC),$(NAMES_DIR)/names_c_gcc $(NAMES_DIR)/names_omp_gcc) \
              $(if $(NAMES_CLANG),$(NAMES_DIR)/names_c_clang) \
              $(if $(OMPTEST_OK),$(NAMES_DIR)/names_omp_clang) \
              $(if $(NAMES_GXX),$(NAMES_DIR)/names_cxx_gxx) \
              $(if $(NAMES_CLANGXX),$(NAMES_DIR)/names_cxx_clangxx) \
              $(if $(NAMES_FC),$(NAMES_DIR)/names_f_gfortran $(NAMES_DIR)/names_f_nog)

$(NAMES_DIR)/names_c_gcc: test/names/names_c.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_GCC) -std=c11 $(NAMES_FLAGS) $(NAMES_GNU) -o $@ $<

$(NAMES_DIR)/names_c_clang: test/names/names_c.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_CLANG) -std=c11 $(NAMES_FLAGS) -finstrument-functions -o $@ $<

$(NAMES_DIR)/names_omp_gcc: test/names/names_omp.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_GCC) -std=c11 $(NAMES_FLAGS) -fopenmp $(NAMES_GNU) -o $@ $<

$(NAMES_DIR)/names_omp_clang: test/names/names_omp.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(OMPTEST_CLANG) -std=c11 $(NAMES_FLAGS) -fopenmp -finstrument-functions -o $@ $<

$(NAMES_DIR)/names_cxx_gxx: test/names/names_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_GXX) -std=c++14 $(NAMES_FLAGS) $(NAMES_GNU) -o $@ $<

$(NAMES_DIR)/names_cxx_clangxx: test/names/names_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_CLANGXX) -std=c++14 $(NAMES_FLAGS) -finstrument-functions -o $@ $<

$(NAMES_DIR)/names_f_gfortran: test/names/names_f.f90
	$(call say,FC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(NAMES_FC) -O1 -g -finstrument-functions -J $(@D) -o $@ $<

# Without debug information: the main program has no name to show.
$(NAMES_DIR)/names_f_nog: test/names/names_f.f90
	$(call say,FC,$@)
	$(Q)mkdir -p $(@D)/nog
	$(Q)$(NAMES_FC) -O1 -finstrument-functions -J $(@D)/nog -o $@ $<

TEST_PROGRAMS += $(NAMES_BINS)
