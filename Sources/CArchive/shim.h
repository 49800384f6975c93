/* CArchive: libarchive's reader and writer headers, plus the file-type macros as constants Swift can read. */
#ifndef CARCHIVE_SHIM_H
#define CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

static const unsigned int CArchive_AE_IFREG = AE_IFREG;
static const unsigned int CArchive_AE_IFDIR = AE_IFDIR;
static const unsigned int CArchive_AE_IFLNK = AE_IFLNK;
#endif
