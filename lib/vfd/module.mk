# lib/vfd — the .vfd raw-trace format: writer (used by libvftrcapture at run
# time) and reader (used by every tool).  Linked as libvftrvfd.a; depends on
# nothing else of vftr's.  share/doc/vfd-format.md documents the format.

VFD_SRC := $(wildcard lib/vfd/*.c)
VFD_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(VFD_SRC))
VFTR_VFD_A := $(LIB)/libvftrvfd.a

all: $(VFTR_VFD_A)

$(VFTR_VFD_A): $(VFD_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# libFuzzer targets (test/fuzz/fuzz_vfd*.c) compile these sources in.
FUZZ_LIBSRC += $(VFD_SRC)

# `make check-headers` also compiles the public header of lib/vfd alone.
.PHONY: check-headers-vfd
check-headers: check-headers-vfd
check-headers-vfd:
	$(Q)printf '#include "vfd/vftr_vfd.h"\n' | \
		$(CC) $(CPPFLAGS) -std=c11 $(WARN) -fsyntax-only -x c - \
		|| { echo "check-headers: lib/vfd/vftr_vfd.h does not compile alone" >&2; exit 1; }
