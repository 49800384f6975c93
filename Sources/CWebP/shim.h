/* CWebP: libwebp's encoder. WebPConfigInit and WebPPictureInit are inline wrappers over versioned functions; they are
   re-exported here as plain functions Swift can call. */
#ifndef CWEBP_SHIM_H
#define CWEBP_SHIM_H
#include <webp/encode.h>

static inline int CWebP_ConfigPreset(WebPConfig *config, WebPPreset preset, float quality) {
    return WebPConfigPreset(config, preset, quality);
}
static inline int CWebP_PictureInit(WebPPicture *picture) { return WebPPictureInit(picture); }
#endif
