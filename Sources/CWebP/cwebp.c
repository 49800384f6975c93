/* libwebp opened on first use (include/cwebp.h). Each forwarder has libwebp's prototype, so the header checks it. */
#include "cwebp.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#if defined(__APPLE__)
/* Absolute folders only: given a bare name, dyld also searches a command-line tool's working folder. */
static const char *const cwebp_paths[] = { "/opt/homebrew/opt/webp/lib/libwebp.7.dylib", "/opt/homebrew/lib/libwebp.7.dylib",
                                           "/usr/local/opt/webp/lib/libwebp.7.dylib", "/usr/local/lib/libwebp.7.dylib",
                                           "/opt/local/lib/libwebp.7.dylib", NULL };
static const char cwebp_hint[] = "brew install webp";
#else
static const char *const cwebp_paths[] = { "libwebp.so.7", NULL };
static const char cwebp_hint[] = "apt install libwebp7";
#endif

#define CWEBP_FUNCTIONS(X) \
    X(WebPConfigInitInternal) X(WebPPictureInitInternal) X(WebPValidateConfig) X(WebPPictureRescale) \
    X(WebPPictureImportRGB) X(WebPPictureFree) X(WebPMemoryWriterInit) X(WebPMemoryWriterClear) X(WebPEncode) \
    X(WebPMemoryWrite)

#define CWEBP_POINTER(name) static __typeof__(&name) p_##name;
CWEBP_FUNCTIONS(CWEBP_POINTER)

static pthread_once_t cwebp_once = PTHREAD_ONCE_INIT;
static int cwebp_loaded = -1;
static char cwebp_why[512];

static void cwebp_load_once(void) {
    void *library = NULL;
    const char *error = "";
    for (int i = 0; cwebp_paths[i] && !library; i++) {
        library = dlopen(cwebp_paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!library) { const char *e = dlerror(); error = e ? e : cwebp_paths[i]; }
    }
    if (!library) {
        snprintf(cwebp_why, sizeof cwebp_why, "libwebp cannot be opened (%s): %s", error, cwebp_hint);
        return;
    }
#define CWEBP_RESOLVE(name) \
    if (!(p_##name = (__typeof__(&name))dlsym(library, #name))) { \
        snprintf(cwebp_why, sizeof cwebp_why, "libwebp has no %s (another version?): %s", #name, cwebp_hint); \
        return; \
    }
    CWEBP_FUNCTIONS(CWEBP_RESOLVE)
    cwebp_loaded = 0;
}

int cwebp_load(char *why, size_t capacity) {
    pthread_once(&cwebp_once, cwebp_load_once);
    if (cwebp_loaded != 0 && why && capacity) snprintf(why, capacity, "%s", cwebp_why);
    return cwebp_loaded;
}

/* The forwarders: PackImage calls them only after cwebp_load returned 0. */
int WebPConfigInitInternal(WebPConfig *c, WebPPreset preset, float quality, int version) {
    return p_WebPConfigInitInternal(c, preset, quality, version);
}
int WebPPictureInitInternal(WebPPicture *p, int version) { return p_WebPPictureInitInternal(p, version); }
int WebPValidateConfig(const WebPConfig *c) { return p_WebPValidateConfig(c); }
int WebPPictureRescale(WebPPicture *p, int width, int height) { return p_WebPPictureRescale(p, width, height); }
int WebPPictureImportRGB(WebPPicture *p, const uint8_t *rgb, int rgb_stride) { return p_WebPPictureImportRGB(p, rgb, rgb_stride); }
void WebPPictureFree(WebPPicture *p) { p_WebPPictureFree(p); }
void WebPMemoryWriterInit(WebPMemoryWriter *w) { p_WebPMemoryWriterInit(w); }
void WebPMemoryWriterClear(WebPMemoryWriter *w) { p_WebPMemoryWriterClear(w); }
int WebPEncode(const WebPConfig *c, WebPPicture *p) { return p_WebPEncode(c, p); }
int WebPMemoryWrite(const uint8_t *data, size_t data_size, const WebPPicture *p) { return p_WebPMemoryWrite(data, data_size, p); }
