/* CWebP: libwebp's encoder for packtool preview's plates, opened on first use (cwebp.c forwards the functions PackImage
 * calls to the library `cwebp_load` opens with dlopen). WebPConfigInit and WebPPictureInit are inline wrappers over
 * versioned functions; they are re-exported here as plain functions Swift can call. Call cwebp_load, and go on only
 * when it returns 0. */
#ifndef CWEBP_H
#define CWEBP_H
#include <stddef.h>
#include <webp/encode.h>

/* Opens libwebp once per process: 0 when every function was found, else -1 with `why` naming what to install. */
int cwebp_load(char *why, size_t capacity);

static inline int CWebP_ConfigPreset(WebPConfig *config, WebPPreset preset, float quality) {
    return WebPConfigPreset(config, preset, quality);
}
static inline int CWebP_PictureInit(WebPPicture *picture) { return WebPPictureInit(picture); }
#endif
