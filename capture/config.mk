# capture/config.mk — build additions of the capture configuration (helper
# `config` of issue 3): the libFuzzer target test/fuzz/fuzz_config.c compiles
# the configuration sources and the lib/util helpers they use.
#
# The configuration itself needs no rule here: capture/config*.c are in
# libvftrcapture.a (capture/module.mk's wildcard), capture/tools/vftr-config.c
# is a capture tool, lib/util/{rangelist,proclist,levenshtein}.c are in
# libvftrutil.a.

CONFIG_FUZZ_SRC := capture/config.c capture/config_keys.c capture/config_print.c \
                   capture/config_regex.c lib/util/rangelist.c lib/util/proclist.c \
                   lib/util/levenshtein.c
# errmsg.c may already be there (another fragment); the fuzz rule links each
# source once only if the list has no duplicates.
FUZZ_LIBSRC   := $(filter-out $(CONFIG_FUZZ_SRC) lib/util/errmsg.c,$(FUZZ_LIBSRC)) \
                 $(CONFIG_FUZZ_SRC) lib/util/errmsg.c
FUZZ_CPPFLAGS += -Icapture
FUZZ_LDLIBS   += -lcjson -lpcre2-8
