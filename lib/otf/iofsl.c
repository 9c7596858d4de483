/* iofsl.c — the IOFSL entry points, all failing (see OTF_File_iofsl.h). */
#include "OTF_File_iofsl.h"
#include "otf_internal.h"

static void unsupported(const char* fn)
{
    vftr_otf_seterr("%s: IOFSL is not supported by vftr", fn);
}

int OTF_File_iofsl_init(OTF_File* o) { (void)o; unsupported(__func__); return 0; }
void OTF_File_iofsl_finalize(OTF_File* o) { (void)o; }
OTF_File* OTF_File_iofsl_open_with_external_buffer(uint32_t len, const char* buffer,
                                                   uint8_t is_compressed, OTF_FileMode mode)
{
    (void)len; (void)buffer; (void)is_compressed; (void)mode;
    unsupported(__func__);
    return NULL;
}
int OTF_File_iofsl_rename(const char* from, const char* to) { (void)from; (void)to; unsupported(__func__); return 0; }
int OTF_File_iofsl_access(const char* filename, int mode) { (void)filename; (void)mode; unsupported(__func__); return 0; }
int OTF_File_iofsl_remove(const char* filename) { (void)filename; unsupported(__func__); return 0; }
int OTF_File_iofsl_clean(const char* filename) { (void)filename; unsupported(__func__); return 0; }
int OTF_File_iofsl_seek(OTF_File* file, uint64_t pos) { (void)file; (void)pos; unsupported(__func__); return 0; }
uint64_t OTF_File_iofsl_tell(OTF_File* file) { (void)file; unsupported(__func__); return 0; }
uint64_t OTF_File_iofsl_size(OTF_File* file) { (void)file; unsupported(__func__); return 0; }
int OTF_File_iofsl_close(OTF_File* file) { (void)file; unsupported(__func__); return 0; }
OTF_FileStatus OTF_File_iofsl_status(OTF_File* file) { (void)file; return OTF_FILESTATUS_UNKNOWN; }
void OTF_File_iofsl_suspend(OTF_File* file) { (void)file; }
int OTF_File_iofsl_revive(OTF_File* file, OTF_FileMode mode) { (void)file; (void)mode; unsupported(__func__); return 0; }
void OTF_File_iofsl_setZBufferSize(OTF_File* file, uint32_t size) { (void)file; (void)size; }
void OTF_File_iofsl_finalizeGlobal(void) {}
OTF_File* OTF_File_iofsl_open_zlevel(const char* filename, OTF_FileManager* manager,
                                     OTF_FileMode mode, OTF_FileCompression compression)
{
    (void)filename; (void)manager; (void)mode; (void)compression;
    unsupported(__func__);
    return NULL;
}
size_t OTF_File_iofsl_read_internal(OTF_File* file, void* dest, size_t length)
{ (void)file; (void)dest; (void)length; unsupported(__func__); return 0; }
size_t OTF_File_iofsl_write_internal(OTF_File* file, const void* src, size_t length)
{ (void)file; (void)src; (void)length; unsupported(__func__); return 0; }
