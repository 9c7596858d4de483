# vftr — top-level Makefile.
#
# One Makefile, one fragment per directory (<dir>/module.mk), everything built
# out of tree below $(BUILD).  Targets:
#
#   make              build libraries and tools
#   make check        build and run every test; ends with "N passed, N failed"
#   make demo         build and run the main job on a bundled example
#   make bench        benchmarks against the reference OTF (ratios, PASS/MISS)
#   make fuzz         build libFuzzer targets (clang) and run each briefly
#   make install PREFIX=/usr/local
#   make deps         install missing Debian packages (as root)
#   make check-headers  every public header compiles on its own
#
# Variables: V=1 (verbose), DEVELOPER=1 (-Werror), SANITIZE=address,undefined
# or SANITIZE=thread (own build directory), CC=clang.

BUILD    ?= build
PREFIX   ?= /usr/local
CC       ?= cc
PYTHON   ?= python3
VERSION  := 0.1.0
OTF_SOVERSION := 1
OTF_LIBVERSION := 1.12.5

comma := ,
ifneq ($(SANITIZE),)
  override BUILD := $(BUILD)/san-$(subst $(comma),-,$(SANITIZE))
endif

ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-8s %s\n' $(1) $(2)
endif

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wundef -Wvla -fno-common
ifeq ($(DEVELOPER),1)
  WARN += -Werror
endif

OPT      ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -I$(BUILD)/include/otf -I$(BUILD)/include -Ilib
CFLAGS   += -std=c11 $(OPT) $(WARN) -fPIC -MMD -MP
LDFLAGS  +=
LDLIBS   +=

ifneq ($(SANITIZE),)
  CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=$(SANITIZE)
endif

PKG_LIBS_OTF := -lisal -lz

BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
OBJ := $(BUILD)/obj

.PHONY: all check demo bench fuzz install deps clean check-headers unit integration
# Keep intermediate files (test programs are built through pattern chains).
# Not `.SECONDARY:` without prerequisites: that makes every target
# intermediate, and a library would then not be rebuilt when a new source
# file appears (its missing object would not count as newer).
.PRECIOUS: $(BUILD)/%
all:

# The package list lives in mk/deps.sh; every entry point that needs tools
# runs it first so that a fresh machine needs nothing installed by hand.
deps:
	$(Q)sh mk/deps.sh

# The goals that need the packages install them before the rest of the
# Makefile is read: what the fragments detect at parse time (mpicc, clang,
# libomp) must already be there on a fresh machine, or the first `make
# check` would build without MPI and fail its MPI tests.
DEPS_GOALS := check check-unit demo bench bench-% fuzz
ifeq ($(MAKELEVEL),0)
  ifneq ($(filter $(DEPS_GOALS),$(MAKECMDGOALS)),)
    DEPS_STATUS := $(shell sh mk/deps.sh 1>&2; echo $$?)
    ifneq ($(DEPS_STATUS),0)
      $(error missing Debian packages (see above))
    endif
  endif
endif

include lib/otf/module.mk

# Every object of the project may include an OTF header: generate them first.
$(OBJ)/%.o: %.c | $(OTF_HEADERS)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

include lib/util/module.mk
include lib/vfd/module.mk
-include lib/model/module.mk
-include lib/report/module.mk
-include lib/mpi/module.mk
include capture/module.mk
include analyzers/module.mk
include test/module.mk
# Fragments of issue 3's parts (each optional until its part lands): they add
# programs to TEST_PROGRAMS, sources to FUZZ_LIBSRC and so on.
-include capture/config.mk test/symbols.mk test/capture/module.mk
# Parts that arrive with later issues (each fragment is optional).
-include capture/mpi/module.mk capture/ompt/module.mk converters/module.mk tui/module.mk
-include test/mpi/module.mk test/omp/module.mk test/tui/module.mk test/snap/module.mk \
         test/stats/module.mk test/conv/module.mk test/ctl/module.mk test/names/module.mk \
         test/waits/module.mk
include bench/module.mk
include test/fuzz/module.mk
include mk/demo.mk
include mk/install.mk

# TEST_PROGRAMS must stay recursively expanded (see test/module.mk): a `:=`
# anywhere would freeze the fragments' program lists at that line and make
# check would silently skip what is added to them afterwards.
ifneq ($(flavor TEST_PROGRAMS),recursive)
  $(error TEST_PROGRAMS is now a $(flavor TEST_PROGRAMS) variable, no longer a recursive one: define and extend it with `=`/`+=` only, never `:=`, so that programs added to a fragment's list after its `TEST_PROGRAMS +=` line are still built (see test/module.mk))
endif

clean:
	rm -rf $(BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
