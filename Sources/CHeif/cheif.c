/* libheif opened on first use (include/cheif.h). Each forwarder has libheif's prototype, so the header checks it. */
#include "cheif.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#if defined(__APPLE__)
/* Absolute folders only: given a bare name, dyld also searches a command-line tool's working folder. */
static const char *const cheif_paths[] = { "/opt/homebrew/opt/libheif/lib/libheif.1.dylib", "/opt/homebrew/lib/libheif.1.dylib",
                                           "/usr/local/opt/libheif/lib/libheif.1.dylib", "/usr/local/lib/libheif.1.dylib",
                                           "/opt/local/lib/libheif.1.dylib", NULL };
static const char cheif_hint[] = "brew install libheif";
#else
static const char *const cheif_paths[] = { "libheif.so.1", NULL };
static const char cheif_hint[] = "apt install libheif1";
#endif

#define CHEIF_FUNCTIONS(X) \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_read_from_file) X(heif_context_read_from_memory) \
    X(heif_context_get_primary_image_handle) X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_set_max_decoding_threads) X(heif_image_handle_release) X(heif_image_handle_get_width) \
    X(heif_image_handle_get_height) X(heif_decode_image) X(heif_image_release) X(heif_image_get_width) \
    X(heif_image_get_height) X(heif_image_get_plane_readonly)

#define CHEIF_POINTER(name) static __typeof__(&name) p_##name;
CHEIF_FUNCTIONS(CHEIF_POINTER)

static pthread_once_t cheif_once = PTHREAD_ONCE_INIT;
static int cheif_loaded = -1;
static char cheif_why[512];

static void cheif_load_once(void) {
    void *library = NULL;
    const char *error = "";
    for (int i = 0; cheif_paths[i] && !library; i++) {
        library = dlopen(cheif_paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!library) { const char *e = dlerror(); error = e ? e : cheif_paths[i]; }
    }
    if (!library) {
        snprintf(cheif_why, sizeof cheif_why, "libheif cannot be opened (%s): %s", error, cheif_hint);
        return;
    }
#define CHEIF_RESOLVE(name) \
    if (!(p_##name = (__typeof__(&name))dlsym(library, #name))) { \
        snprintf(cheif_why, sizeof cheif_why, "libheif has no %s (another version?): %s", #name, cheif_hint); \
        return; \
    }
    CHEIF_FUNCTIONS(CHEIF_RESOLVE)
    cheif_loaded = 0;
}

int cheif_load(char *why, size_t capacity) {
    pthread_once(&cheif_once, cheif_load_once);
    if (cheif_loaded != 0 && why && capacity) snprintf(why, capacity, "%s", cheif_why);
    return cheif_loaded;
}

/* The forwarders: PackImage calls them only after cheif_load returned 0. */
struct heif_context *heif_context_alloc(void) { return p_heif_context_alloc(); }
void heif_context_free(struct heif_context *c) { p_heif_context_free(c); }
struct heif_error heif_context_read_from_file(struct heif_context *c, const char *filename, const struct heif_reading_options *o) {
    return p_heif_context_read_from_file(c, filename, o);
}
struct heif_error heif_context_read_from_memory(struct heif_context *c, const void *mem, size_t size, const struct heif_reading_options *o) {
    return p_heif_context_read_from_memory(c, mem, size, o);
}
struct heif_error heif_context_get_primary_image_handle(struct heif_context *c, struct heif_image_handle **h) {
    return p_heif_context_get_primary_image_handle(c, h);
}
void heif_context_set_maximum_image_size_limit(struct heif_context *c, int maximum_width) {
    p_heif_context_set_maximum_image_size_limit(c, maximum_width);
}
void heif_context_set_max_decoding_threads(struct heif_context *c, int max_threads) { p_heif_context_set_max_decoding_threads(c, max_threads); }
void heif_image_handle_release(const struct heif_image_handle *h) { p_heif_image_handle_release(h); }
int heif_image_handle_get_width(const struct heif_image_handle *h) { return p_heif_image_handle_get_width(h); }
int heif_image_handle_get_height(const struct heif_image_handle *h) { return p_heif_image_handle_get_height(h); }
struct heif_error heif_decode_image(const struct heif_image_handle *h, struct heif_image **out, enum heif_colorspace colorspace,
                                    enum heif_chroma chroma, const struct heif_decoding_options *o) {
    return p_heif_decode_image(h, out, colorspace, chroma, o);
}
void heif_image_release(const struct heif_image *i) { p_heif_image_release(i); }
int heif_image_get_width(const struct heif_image *i, enum heif_channel channel) { return p_heif_image_get_width(i, channel); }
int heif_image_get_height(const struct heif_image *i, enum heif_channel channel) { return p_heif_image_get_height(i, channel); }
const uint8_t *heif_image_get_plane_readonly(const struct heif_image *i, enum heif_channel channel, int *out_stride) {
    return p_heif_image_get_plane_readonly(i, channel, out_stride);
}
