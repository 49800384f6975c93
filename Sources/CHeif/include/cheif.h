/* CHeif: libheif's decoding API for packtool preview's plates, opened on first use. The declarations are libheif's own
 * (its header); the functions PackImage calls are defined in cheif.c as forwarders to the library, which `cheif_load`
 * opens with dlopen, so a command that decodes no plate maps neither libheif nor the codecs it brings (libde265, x265,
 * libaom, dav1d). Call cheif_load, and go on only when it returns 0. */
#ifndef CHEIF_H
#define CHEIF_H
#include <stddef.h>
#include <libheif/heif.h>

/* Opens libheif once per process (later calls give the first answer): 0 when every function was found, else -1 with
 * `why` (at most `capacity` bytes) naming what is missing and what to install. */
int cheif_load(char *why, size_t capacity);
#endif
