/*
 * OTF_File_iofsl.h — the IOFSL (I/O forwarding) file layer of the OTF API.
 *
 * vftr does not forward I/O: these functions exist so that programs naming
 * them compile and link, and every one of them fails — opening returns NULL,
 * integer results are 0, sizes and positions 0 — with otf_strerr saying
 * "IOFSL is not supported by vftr".
 */
#ifndef OTF_FILE_IOFSL_H
#define OTF_FILE_IOFSL_H

#include "OTF_Filenames.h"
#include "OTF_File.h"

#ifdef __cplusplus
extern "C" {
#endif

int OTF_File_iofsl_init(OTF_File* o);
void OTF_File_iofsl_finalize(OTF_File* o);
OTF_File* OTF_File_iofsl_open_with_external_buffer(uint32_t len, const char* buffer,
                                                   uint8_t is_compressed, OTF_FileMode mode);
int OTF_File_iofsl_rename(const char* from, const char* to);
int OTF_File_iofsl_access(const char* filename, int mode);
int OTF_File_iofsl_remove(const char* filename);
int OTF_File_iofsl_clean(const char* filename);
int OTF_File_iofsl_seek(OTF_File* file, uint64_t pos);
uint64_t OTF_File_iofsl_tell(OTF_File* file);
uint64_t OTF_File_iofsl_size(OTF_File* file);
int OTF_File_iofsl_close(OTF_File* file);
OTF_FileStatus OTF_File_iofsl_status(OTF_File* file);
void OTF_File_iofsl_suspend(OTF_File* file);
int OTF_File_iofsl_revive(OTF_File* file, OTF_FileMode mode);
void OTF_File_iofsl_setZBufferSize(OTF_File* file, uint32_t size);
void OTF_File_iofsl_finalizeGlobal(void);
OTF_File* OTF_File_iofsl_open_zlevel(const char* filename, OTF_FileManager* manager,
                                     OTF_FileMode mode, OTF_FileCompression compression);
size_t OTF_File_iofsl_read_internal(OTF_File* file, void* dest, size_t length);
size_t OTF_File_iofsl_write_internal(OTF_File* file, const void* src, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* OTF_FILE_IOFSL_H */
