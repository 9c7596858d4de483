# test/symbols.mk — programs for the ELF symbol reader's tests
# (test/unit/test_capture_symbols.c runs them; sources in test/data/symbols/).
#
#   $(BUILD)/test/symbols/symprog_pie     PIE, links libsymlib.so, dlopens libsymplug.so
#   $(BUILD)/test/symbols/symprog_nopie   the same, -no-pie
#   $(BUILD)/test/symbols/symcxx          C++ (demangling, build time of the table)
#   $(BUILD)/test/symbols/symfort         Fortran module names (gfortran if installed)
#   $(BUILD)/test/symbols/symstrip        stripped: only .dynsym left
#   $(BUILD)/test/symbols/libsymlib.so, libsymplug.so
#   $(BUILD)/test/symbols/libsymswap_a.so, libsymswap_b.so  one layout, two names
#
# The programs link libvftrcapture.a and are built with the sanitizer of the
# build (its runtime is needed by the archive); the helper libraries are not.
# Building the unit suite builds them (order-only prerequisite), so
# `make check-unit` under a sanitizer finds them too.

SYM_DIR  := $(TEST_DIR)/symbols
SYM_SRC  := test/data/symbols
SYM_ARCH := $(CAPTURE_A) $(VFTR_VFD_A) $(VFTR_UTIL_A)
SYM_SAN  := $(filter -fsanitize=% -fno-omit-frame-pointer,$(CFLAGS))
SYM_CFLAGS := -std=c11 $(OPT) $(WARN) -D_GNU_SOURCE -Icapture $(SYM_SAN)
SYM_LINK = $(SYM_ARCH) $(CAPTURE_LDLIBS)
# The C++ compiler must match CC: a sanitizer runtime of gcc and one of clang
# do not mix.
SYM_CXX  := $(if $(findstring clang,$(CC)),clang++,g++)
SYM_CXXFLAGS := -std=c++17 $(OPT) $(filter-out -Wstrict-prototypes -Wmissing-prototypes,$(WARN)) \
                -D_GNU_SOURCE -Icapture $(SYM_SAN)
SYM_FC   := $(shell command -v gfortran 2>/dev/null)

SYM_PROGRAMS := $(addprefix $(SYM_DIR)/,libsymlib.so libsymplug.so libsymswap_a.so \
                  libsymswap_b.so symprog_pie symprog_nopie symcxx symfort symstrip)
TEST_PROGRAMS += $(SYM_PROGRAMS)

$(TEST_DIR)/unit/test_capture_symbols: | $(SYM_PROGRAMS)

$(SYM_DIR)/lib%.so: $(SYM_SRC)/%.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(OPT) $(WARN) -fPIC -shared -Wl,-soname,lib$*.so -o $@ $<

$(SYM_DIR)/libsymswap_a.so: SWAP_FN := swap_alpha
$(SYM_DIR)/libsymswap_b.so: SWAP_FN := swap_bravo
$(SYM_DIR)/libsymswap_a.so $(SYM_DIR)/libsymswap_b.so: $(SYM_SRC)/symswap.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(OPT) $(WARN) -DFN=$(SWAP_FN) -fPIC -shared \
		-Wl,-soname,$(notdir $@) -o $@ $<

$(SYM_DIR)/symprog_pie: $(SYM_SRC)/symprog.c $(SYM_DIR)/libsymlib.so $(SYM_ARCH)
	$(call say,CC,$@)
	$(Q)$(CC) $(SYM_CFLAGS) -fPIE -pie -o $@ $< -L$(SYM_DIR) -lsymlib -Wl,-rpath,'$$ORIGIN' \
		$(LDFLAGS) $(SYM_LINK)

$(SYM_DIR)/symprog_nopie: $(SYM_SRC)/symprog.c $(SYM_DIR)/libsymlib.so $(SYM_ARCH)
	$(call say,CC,$@)
	$(Q)$(CC) $(SYM_CFLAGS) -fno-pie -no-pie -o $@ $< -L$(SYM_DIR) -lsymlib -Wl,-rpath,'$$ORIGIN' \
		$(LDFLAGS) $(SYM_LINK)

$(SYM_DIR)/symcxx: $(SYM_SRC)/symcxx.cc $(SYM_ARCH)
	$(call say,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(SYM_CXX) $(SYM_CXXFLAGS) -rdynamic -o $@ $< $(LDFLAGS) $(SYM_LINK)

ifneq ($(SYM_FC),)
$(SYM_DIR)/symfort_mod.o: $(SYM_SRC)/symfort_mod.f90
	$(call say,FC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(SYM_FC) -O1 -J$(@D) -c -o $@ $<

$(SYM_DIR)/symfort: $(SYM_SRC)/symfort.c $(SYM_DIR)/symfort_mod.o $(SYM_ARCH)
	$(call say,CC,$@)
	$(Q)$(CC) $(SYM_CFLAGS) -o $@ $< $(SYM_DIR)/symfort_mod.o $(LDFLAGS) $(SYM_LINK) \
		-L$(dir $(shell $(SYM_FC) -print-file-name=libgfortran.so)) -lgfortran
else
$(SYM_DIR)/symfort: $(SYM_SRC)/symfort.c $(SYM_ARCH)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SYM_CFLAGS) -DNO_GFORTRAN -o $@ $< $(LDFLAGS) $(SYM_LINK)
endif

$(SYM_DIR)/symstrip: $(SYM_SRC)/symstrip.c $(SYM_ARCH)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SYM_CFLAGS) -rdynamic -o $@.full $< $(LDFLAGS) $(SYM_LINK)
	$(Q)strip --strip-all -o $@ $@.full

# libFuzzer target test/fuzz/fuzz_elf.c (make fuzz).
FUZZ_LIBSRC   += capture/symbols.c capture/demangle.c
FUZZ_CPPFLAGS += -Icapture
FUZZ_LDLIBS   += -ldl
