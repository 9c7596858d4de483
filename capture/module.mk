# capture — libvftrcapture, the library inside the user's program.
#
# capture/*.c            -> $(LIB)/libvftrcapture.a (tests and tools link it)
# capture/tools/<t>.c    -> $(BIN)/<t>
# Objects are built with hidden visibility: only what the export list names
# leaves the shared library.  Capture never links the OTF library.

CAPTURE_SRC    := $(wildcard capture/*.c)
CAPTURE_OBJ    := $(patsubst %.c,$(OBJ)/%.o,$(CAPTURE_SRC))
CAPTURE_A      := $(LIB)/libvftrcapture.a
CAPTURE_LDLIBS := -lcjson -lpcre2-8 -ldl -lpthread -lm
CAPTURE_TOOLS  := $(sort $(notdir $(basename $(wildcard capture/tools/*.c))))
CAPTURE_BINS   := $(addprefix $(BIN)/,$(CAPTURE_TOOLS))

$(OBJ)/capture/%.o: CFLAGS += -fvisibility=hidden
$(OBJ)/capture/%.o: CPPFLAGS += -Icapture -DVFTR_VERSION=\"$(VERSION)\"

all: $(CAPTURE_A) $(CAPTURE_BINS)

$(CAPTURE_A): $(CAPTURE_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

define capture_tool_rule
$(BIN)/$(1): $(OBJ)/capture/tools/$(1).o $(CAPTURE_A) $(VFTR_VFD_A) $(VFTR_UTIL_A)
	$$(call say,LD,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$$(CC) $$(LDFLAGS) -o $$@ $$< $(CAPTURE_A) $(VFTR_VFD_A) $(VFTR_UTIL_A) $(CAPTURE_LDLIBS)
endef
$(foreach t,$(CAPTURE_TOOLS),$(eval $(call capture_tool_rule,$(t))))
