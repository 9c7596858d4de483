/* OTF_inttypes_unix.h — kept for programs that include it by name. */
#ifndef OTF_INTTYPES_UNIX_H
#define OTF_INTTYPES_UNIX_H
#include "OTF_inttypes.h"
#endif /* OTF_INTTYPES_UNIX_H */
