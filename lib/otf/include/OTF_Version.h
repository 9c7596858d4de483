/*
 * OTF_Version.h — the OTF format version that vftr's OTF library writes and
 * reads.  vftr implements OTF 1.12.5 ("salmon"); this is what DefVersion
 * records and the DV header line of every trace carry.
 */
#ifndef OTF_VERSION_H
#define OTF_VERSION_H

#define OTF_VERSION_MAJOR   1
#define OTF_VERSION_MINOR   12
#define OTF_VERSION_SUB     5
#define OTF_VERSION_STRING  "salmon"
/* Old misspelling kept by the OTF API for existing programs. */
#define OTF_VERSION_MAYOR   OTF_VERSION_MAJOR

/* vftr's own version of its OTF implementation. */
#define VFTR_OTF_IMPLEMENTATION "vftr"

#endif /* OTF_VERSION_H */
