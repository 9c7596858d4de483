# capture — libvftrcapture, the library inside the user's program.
#
# capture/*.c            -> $(LIB)/libvftrcapture.a (tests and tools link it)
#                           and $(LIB)/libvftrcapture.so.$(CAPTURE_LIBVERSION)
#                           (soname libvftrcapture.so.$(CAPTURE_SOVERSION)),
#                           with symlinks .so.0 and .so
# capture/tools/<t>.c    -> $(BIN)/<t> (linked with lib/model, lib/vfd, lib/util)
# Objects are built with hidden visibility and the shared library exports
# only what capture/exports.map names (hooks, vftr.h API).  Capture never
# links the OTF library and is never built with -finstrument-functions.

CAPTURE_SRC    := $(wildcard capture/*.c)
CAPTURE_LDLIBS := -lcjson -lpcre2-8 -lunwind -lunwind-generic -ldl -lpthread -lm
# the counters' PAPI backend or its stub (CAPTURE_PAPI_OBJ, CAPTURE_LDLIBS)
include capture/papi/module.mk
CAPTURE_OBJ    := $(patsubst %.c,$(OBJ)/%.o,$(CAPTURE_SRC)) $(CAPTURE_PAPI_OBJ)
# In the shared library only: capture/preload/ interposes __libc_start_main,
# which a tool or test linking the archive must never pick up.
CAPTURE_SO_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(wildcard capture/preload/*.c))
CAPTURE_A      := $(LIB)/libvftrcapture.a
CAPTURE_TOOLS  := $(sort $(notdir $(basename $(wildcard capture/tools/*.c))))
CAPTURE_BINS   := $(addprefix $(BIN)/,$(CAPTURE_TOOLS))
CAPTURE_SOVERSION  := 0
CAPTURE_LIBVERSION := 0.1.0
CAPTURE_SO     := $(LIB)/libvftrcapture.so.$(CAPTURE_LIBVERSION)
CAPTURE_SO_LINKS := $(LIB)/libvftrcapture.so.$(CAPTURE_SOVERSION) $(LIB)/libvftrcapture.so
CAPTURE_HEADERS := capture/vftr.h capture/vftr_ec.h

$(OBJ)/capture/%.o: CFLAGS += -fvisibility=hidden
$(OBJ)/capture/%.o: CPPFLAGS += -Icapture -DVFTR_VERSION=\"$(VERSION)\"

# vftr-run finds the library next to itself (../lib) or in the installed
# lib dir, and preloads the sanitizer runtime first when the library was
# built with one (a preloaded ASan/TSan library needs its runtime loaded
# before everything else).
CAPTURE_SAN_RT :=
ifneq ($(findstring address,$(SANITIZE)),)
  CAPTURE_SAN_RT := $(shell $(CC) -print-file-name=libasan.so)
endif
ifneq ($(findstring thread,$(SANITIZE)),)
  CAPTURE_SAN_RT := $(shell $(CC) -print-file-name=libtsan.so)
endif
$(OBJ)/capture/tools/vftr-run.o: CPPFLAGS += -DVFTR_LIBDIR=\"$(PREFIX)/lib\" \
	-DVFTR_SAN_RUNTIME=\"$(CAPTURE_SAN_RT)\" -DVFTR_CAPTURE_SONAME=\"libvftrcapture.so.$(CAPTURE_SOVERSION)\"

all: $(CAPTURE_A) $(CAPTURE_SO) $(CAPTURE_BINS)

$(CAPTURE_A): $(CAPTURE_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The static lib/vfd and lib/util archives are linked in (their objects are
# -fPIC); the version script keeps their symbols local.  lib/model gives
# the imbalance of the profile over ranks (capture/collate.c).
$(CAPTURE_SO): $(CAPTURE_OBJ) $(CAPTURE_SO_OBJ) $(VFTR_MODEL_A) $(VFTR_VFD_A) $(VFTR_UTIL_A) \
               capture/exports.map
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,libvftrcapture.so.$(CAPTURE_SOVERSION) \
		-Wl,--version-script=capture/exports.map -Wl,-z,defs -o $@ $(CAPTURE_OBJ) $(CAPTURE_SO_OBJ) \
		$(VFTR_MODEL_A) $(VFTR_VFD_A) $(VFTR_UTIL_A) $(CAPTURE_LDLIBS)
	$(Q)ln -sf libvftrcapture.so.$(CAPTURE_LIBVERSION) $(LIB)/libvftrcapture.so.$(CAPTURE_SOVERSION)
	$(Q)ln -sf libvftrcapture.so.$(CAPTURE_SOVERSION) $(LIB)/libvftrcapture.so

define capture_tool_rule
$(BIN)/$(1): $(OBJ)/capture/tools/$(1).o $(CAPTURE_A) $(VFTR_MODEL_A) $(VFTR_VFD_A) $(VFTR_UTIL_A)
	$$(call say,LD,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< $(CAPTURE_A) $(VFTR_MODEL_A) $(VFTR_VFD_A) $(VFTR_UTIL_A) \
		$$(CAPTURE_LDLIBS)
endef
$(foreach t,$(CAPTURE_TOOLS),$(eval $(call capture_tool_rule,$(t))))
