# lib/util — small helpers shared by vftr's tools (time specifications,
# process lists, option tables).  Linked as libvftrutil.a.

UTIL_SRC := $(wildcard lib/util/*.c)
UTIL_OBJ := $(patsubst %.c,$(OBJ)/%.o,$(UTIL_SRC))
VFTR_UTIL_A := $(LIB)/libvftrutil.a

all: $(VFTR_UTIL_A)

$(VFTR_UTIL_A): $(UTIL_OBJ)
	$(call say,AR,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
