/*
 * otf.h — the one header an OTF program includes: vftr's implementation of
 * the Open Trace Format API 1.12 (writer, reader, streams, buffers, handler
 * arrays, key-value lists, master control, file manager).
 */
#ifndef OTF_H
#define OTF_H

#include "OTF_Definitions.h"
#include "OTF_Errno.h"
#include "OTF_KeyValue.h"
#include "OTF_FileManager.h"
#include "OTF_Filenames.h"
#include "OTF_HandlerArray.h"
#include "OTF_MasterControl.h"
#include "OTF_RStream.h"
#include "OTF_Reader.h"
#include "OTF_WStream.h"
#include "OTF_Writer.h"

#endif /* OTF_H */
