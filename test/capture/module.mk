# test/capture — instrumented programs that count their own calls, run under
# vftr-run by test/integration/capture_*.sh, and vfdcount, the small .vfd
# reader the scripts use.  Built into $(BUILD)/test/capture/.
#
# The programs are compiled with -finstrument-functions (system headers
# excluded) and linked normally: the runtime comes from vftr-run's
# LD_PRELOAD.  In a sanitizer build they carry the sanitizer too, so that
# the preloaded (sanitized) library finds its runtime in the process.
# C++ needs $(CXX); the Fortran program is built only when gfortran exists;
# cap_regions only once capture/vftr.h is there.

CAPTEST_DIR   := $(BUILD)/test/capture
CAPTEST_SAN   := $(filter -fsanitize%,$(CFLAGS)) $(if $(SANITIZE),-fno-omit-frame-pointer)
CAPTEST_CLANG := $(filter clang%,$(notdir $(CC)))
# gcc can leave the inline functions of system headers alone; clang cannot
# (it instruments before inlining, so those show up as functions of their own).
CAPTEST_INSTR := -finstrument-functions \
                 $(if $(CAPTEST_CLANG),,-finstrument-functions-exclude-file-list=/usr/include)
CAPTEST_FLAGS := -D_GNU_SOURCE -O2 -g $(CAPTEST_INSTR) $(CAPTEST_SAN)
CAPTEST_CXX   ?= $(if $(CAPTEST_CLANG),clang++,g++)
CAPTEST_FC    := $(shell command -v gfortran 2>/dev/null)

CAPTEST_C := cap_fib cap_deep cap_wide cap_threads cap_signal cap_dlopen cap_fork cap_filter cap_output cap_exec cap_swap cap_hot cap_patch cap_thrpatch cap_thrff \
             cap_io cap_counters cap_files $(if $(wildcard capture/vftr.h),cap_regions cap_pause)
CAPTEST_BINS := $(addprefix $(CAPTEST_DIR)/,$(CAPTEST_C) cap_cxx libcapdl.so libcapswap_a.so \
                  libcapswap_b.so libcappatch.so cap_patch_noplt cap_patch_nopie \
                  vfdcount insnlen nohooks spin_shares spin_paths \
                  nohooks_linked cap_io_fortify) \
                $(if $(CAPTEST_FC),$(CAPTEST_DIR)/cap_fortran $(CAPTEST_DIR)/cap_io_f)

$(CAPTEST_DIR)/cap_%: test/capture/cap_%.c test/capture/calls.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -Icapture -o $@ $< $(LDFLAGS) -ldl -lpthread

# cap_files: two source files and a header (capture_filter_files.sh)
$(CAPTEST_DIR)/cap_files: test/capture/cap_files.c test/capture/capfiles_other.c \
                          test/capture/capfiles.h test/capture/calls.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -o $@ $(filter %.c,$^) $(LDFLAGS)

# cap_io built with _FORTIFY_SOURCE: it calls read's, fprintf's, fread's
# and fgets's _chk forms (capture_io.sh)
$(CAPTEST_DIR)/cap_io_fortify: test/capture/cap_io.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) -D_FORTIFY_SOURCE=2 $(WARN) -o $@ $< $(LDFLAGS) -lpthread

$(CAPTEST_DIR)/libcapdl.so: test/capture/capdl.c test/capture/calls.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -fPIC -shared -o $@ $< $(LDFLAGS)

# filter.patch_excluded (capture_patch.sh): the library cap_patch opens,
# and cap_patch built as the other forms of the hook call: through the GOT
# (-fno-plt: ff 15) and in a program that is no PIE (e8 to the PLT); with
# clang too where it is there (not in a sanitizer build: its runtime is
# not gcc's).
$(CAPTEST_DIR)/libcappatch.so: test/capture/cappatch.c test/capture/calls.h test/capture/patchsite.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -fPIC -shared -o $@ $< $(LDFLAGS)

$(CAPTEST_DIR)/cap_patch: test/capture/patchsite.h
$(CAPTEST_DIR)/cap_patch_noplt: test/capture/cap_patch.c test/capture/calls.h test/capture/patchsite.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) -fno-plt $(WARN) -o $@ $< $(LDFLAGS) -ldl -lpthread

$(CAPTEST_DIR)/cap_patch_nopie: test/capture/cap_patch.c test/capture/calls.h test/capture/patchsite.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) -fno-pie -no-pie $(WARN) -o $@ $< $(LDFLAGS) -ldl -lpthread

CAPTEST_PATCH_CLANG := $(if $(SANITIZE),,$(if $(CAPTEST_CLANG),,$(shell command -v clang 2>/dev/null)))
ifneq ($(CAPTEST_PATCH_CLANG),)
CAPTEST_BINS += $(CAPTEST_DIR)/cap_patch_clang $(CAPTEST_DIR)/cap_patch_clang_noplt
$(CAPTEST_DIR)/cap_patch_clang: test/capture/cap_patch.c test/capture/calls.h test/capture/patchsite.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_PATCH_CLANG) -std=c11 -D_GNU_SOURCE -O2 -g -finstrument-functions $(WARN) -o $@ $< \
		$(LDFLAGS) -ldl -lpthread
$(CAPTEST_DIR)/cap_patch_clang_noplt: test/capture/cap_patch.c test/capture/calls.h test/capture/patchsite.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_PATCH_CLANG) -std=c11 -D_GNU_SOURCE -O2 -g -finstrument-functions -fno-plt $(WARN) \
		-o $@ $< $(LDFLAGS) -ldl -lpthread
endif

# The two libraries cap_swap opens in turn at one address: one source, two
# function names of the same length (the same layout).
$(CAPTEST_DIR)/libcapswap_a.so: WORK := alpha_work
$(CAPTEST_DIR)/libcapswap_b.so: WORK := bravo_work
$(CAPTEST_DIR)/libcapswap_%.so: test/capture/capswap.c test/capture/calls.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -DWORK=$(WORK) -fPIC -shared \
		-Wl,-soname,libcapswap_$*.so -o $@ $< $(LDFLAGS)

$(CAPTEST_DIR)/cap_cxx: test/capture/cap_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_CXX) -std=c++14 $(CAPTEST_FLAGS) -Wall -Wextra -o $@ $< $(LDFLAGS)

$(CAPTEST_DIR)/cap_io_f: test/capture/cap_io_f.f90
	$(call say,FC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_FC) -O2 -g -finstrument-functions $(CAPTEST_SAN) -J $(@D) -o $@ $< $(LDFLAGS)

$(CAPTEST_DIR)/cap_fortran: test/capture/cap_fortran.f90
	$(call say,FC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_FC) -O2 -g -finstrument-functions $(CAPTEST_SAN) -J $(@D) -o $@ $< $(LDFLAGS)

# Known time shares for statistical sampling (capture_sample.sh): no
# -finstrument-functions either.
$(CAPTEST_DIR)/spin_shares: test/capture/spin_shares.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(CAPTEST_SAN) $(WARN) -o $@ $< $(LDFLAGS) -lpthread

# One leaf by two call paths (capture_sample_paths.sh): no hooks either.
$(CAPTEST_DIR)/spin_paths: test/capture/spin_paths.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(CAPTEST_SAN) $(WARN) -o $@ $< $(LDFLAGS)

# The same in OpenMP threads (-o N): clang's libomp, which has OMPT (as
# test/omp), unsanitized like those programs; only where clang has omp.h.
CAPTEST_OMPCC := $(shell command -v clang 2>/dev/null)
CAPTEST_OMP   := $(if $(CAPTEST_OMPCC),$(shell echo '\#include <omp.h>' | \
                   $(CAPTEST_OMPCC) -fopenmp -E -x c - >/dev/null 2>&1 && echo yes))
CAPTEST_BINS  += $(if $(CAPTEST_OMP),$(CAPTEST_DIR)/spin_shares_omp)
$(CAPTEST_DIR)/spin_shares_omp: test/capture/spin_shares.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_OMPCC) -std=c11 -D_GNU_SOURCE -O2 -g -fopenmp $(WARN) -o $@ $< -lpthread

# A program without compiler hooks (capture_nohooks.sh): no -finstrument-functions.
$(CAPTEST_DIR)/nohooks: test/capture/nohooks.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(CAPTEST_SAN) $(WARN) -o $@ $< $(LDFLAGS)

# The same linked with -lvftrcapture (the library's __libc_start_main is then
# the program's too).
$(CAPTEST_DIR)/nohooks_linked: test/capture/nohooks.c $(CAPTURE_SO)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(CAPTEST_SAN) $(WARN) -o $@ $< $(LDFLAGS) \
		-L$(abspath $(LIB)) -Wl,-rpath,$(abspath $(LIB)) -lvftrcapture

# insnlen: the patcher's decoder on the disassembly's bytes (capture_patch.sh),
# linked with the capture archive, where vftr_patch_insn_len is.
$(OBJ)/test/capture/insnlen.o: CPPFLAGS += -Icapture
$(CAPTEST_DIR)/insnlen: $(OBJ)/test/capture/insnlen.o $(CAPTURE_A) $(VFTR_VFD_A) $(VFTR_UTIL_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CAPTURE_A) $(VFTR_MODEL_A) $(VFTR_VFD_A) $(VFTR_UTIL_A) $(CAPTURE_LDLIBS)

# vfdcount is a tool of the tests, not an instrumented program.
$(CAPTEST_DIR)/vfdcount: $(OBJ)/test/capture/vfdcount.o $(VFTR_VFD_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A)

# instrument.patchable (capture_patchable.sh): built with
# -fpatchable-function-entry=5 and no hooks; with -fcf-protection too (its
# sleds follow an endbr64), and the library it dlopens.
CAPTEST_SLED := -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 $(CAPTEST_SAN)
$(CAPTEST_DIR)/sled_prog: test/capture/sled_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(CAPTEST_SLED) -fcf-protection=none $(WARN) -o $@ $< $(LDFLAGS) -ldl -lpthread

$(CAPTEST_DIR)/sled_prog_cet: test/capture/sled_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(CAPTEST_SLED) -fcf-protection=full $(WARN) -o $@ $< $(LDFLAGS) -ldl -lpthread

$(CAPTEST_DIR)/libsled.so: test/capture/sled_lib.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_SLED) $(WARN) -fPIC -shared -o $@ $< $(LDFLAGS)

# C++ with sleds: exceptions through traced frames (capture/preload/unwind.c),
# the library it dlopens (a C program too: sled_cdl), and the same program with the C++ runtime and the
# unwinder linked in statically (refused: capture cannot interpose them;
# not in a sanitizer build, whose runtime wants the shared ones)
$(CAPTEST_DIR)/sled_cxx: test/capture/sled_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_CXX) -std=c++14 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 $(CAPTEST_SAN) \
		-Wall -Wextra -o $@ $< $(LDFLAGS) -ldl -lpthread

$(CAPTEST_DIR)/libsled_cxx.so: test/capture/sled_cxxlib.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_CXX) -std=c++14 -O2 -g -fpatchable-function-entry=5 $(CAPTEST_SAN) -Wall -Wextra \
		-fPIC -shared -o $@ $< $(LDFLAGS)

$(CAPTEST_DIR)/sled_cdl: test/capture/sled_cdl.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_SLED) $(WARN) -o $@ $< $(LDFLAGS) -ldl

$(CAPTEST_DIR)/sled_cxx_static: test/capture/sled_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_CXX) -std=c++14 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 -Wall -Wextra \
		-static-libstdc++ -static-libgcc -o $@ $< $(LDFLAGS) -ldl -lpthread

CAPTEST_BINS += $(CAPTEST_DIR)/sled_prog $(CAPTEST_DIR)/sled_prog_cet $(CAPTEST_DIR)/libsled.so \
                $(CAPTEST_DIR)/sled_cxx $(CAPTEST_DIR)/libsled_cxx.so $(CAPTEST_DIR)/sled_cdl \
                $(if $(SANITIZE),,$(CAPTEST_DIR)/sled_cxx_static)

# dlopen by a bare name from a program whose RUNPATH ($ORIGIN/sledplug)
# holds the library (capture_patchable_dlopen.sh): capture's dlopen must
# search the caller's paths, not its own
$(CAPTEST_DIR)/sled_prog_rp: test/capture/sled_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(CAPTEST_SLED) -fcf-protection=none $(WARN) -o $@ $< $(LDFLAGS) -ldl -lpthread \
		-Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/sledplug'

$(CAPTEST_DIR)/sledplug/libsledplug.so: test/capture/sled_lib.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_SLED) $(WARN) -fPIC -shared -o $@ $< $(LDFLAGS)

CAPTEST_BINS += $(CAPTEST_DIR)/sled_prog_rp $(CAPTEST_DIR)/sledplug/libsledplug.so

# clang's sled is one 5-byte nop (gcc's five one-byte ones); where clang is
# there, not in a sanitizer build (as cap_patch_clang)
ifneq ($(CAPTEST_PATCH_CLANG),)
CAPTEST_BINS += $(CAPTEST_DIR)/sled_prog_clang $(CAPTEST_DIR)/sled_cxx_clang
$(CAPTEST_DIR)/sled_cxx_clang: test/capture/sled_cxx.cpp
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_PATCH_CLANG)++ -std=c++14 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 \
		-Wall -Wextra -o $@ $< $(LDFLAGS) -ldl -lpthread
$(CAPTEST_DIR)/sled_prog_clang: test/capture/sled_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CAPTEST_PATCH_CLANG) -std=gnu11 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 $(WARN) \
		-o $@ $< $(LDFLAGS) -ldl -lpthread
endif

TEST_PROGRAMS += $(CAPTEST_BINS)

.PHONY: capture-tests
capture-tests: $(CAPTEST_BINS)
