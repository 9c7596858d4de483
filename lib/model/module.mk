# lib/model — the trace model every analysis tool shares: call-stack replay,
# profile aggregation, message matching.  Linked as libvftrmodel.a.  It
# parses no file format: tools feed it events from their own readers (OTF
# handlers, .vfd records).

MODEL_SRC := $(wildcard lib/model/*.c)
MODEL_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(MODEL_SRC))
VFTR_MODEL_A := $(LIB)/libvftrmodel.a

all: $(VFTR_MODEL_A)

$(VFTR_MODEL_A): $(MODEL_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# OTF2 comes from libotf2 (Debian's libopen-trace-format2-dev): the model's
# OTF2 reader and writer link it, never a copy of it.
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)
FUZZ_LDLIBS += $(OTF2_LIBS)

# vfdotf.c names vfd2otf and its version as the creator of the traces it
# writes; vfdcache.c remakes a cached trace when the version changes.
$(OBJ)/lib/model/vfdotf.o $(OBJ)/lib/model/vfdcache.o: CPPFLAGS += -DVFTR_VERSION=\"$(VERSION)\"
