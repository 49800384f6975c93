/* CHeif: libheif's decoding API (HEVC through libde265 in Debian's build), for packtool preview's plates. */
#ifndef CHEIF_SHIM_H
#define CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
