# analyzers — vftr's trace analysis tools.  Each tool lives in its own
# directory analyzers/<tool>/ and is linked from its *.c files against lib/.

ANALYZER_TOOLS :=
