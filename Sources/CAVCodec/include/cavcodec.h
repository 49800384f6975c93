/* CAVCodec: FFmpeg's demuxers, decoders and resampler, opened at run time on first use, for lint to hear the story
 * (authoring only: no client module links it). No FFmpeg type crosses this header: the Swift side sees a decoder that
 * hands out mono 32-bit float samples, and packtool maps none of FFmpeg's ~140 libraries until a story is decoded
 * (`packtool --version`, `verify`, `sign` with every voice cached never load them; DESIGN.md §9.8).
 *
 * The libraries are opened by the sonames of the FFmpeg headers this file was compiled against (the struct layouts
 * it reads are those of that major version), from the system's search path or, on macOS, Homebrew's and MacPorts'
 * folders; PACKTOOL_FFMPEG_LIBRARY_PATH names one folder to use instead. */
#ifndef CAVCODEC_H
#define CAVCODEC_H
#include <stddef.h>
#include <stdint.h>

/* Opens FFmpeg's libraries once per process (later calls return the first answer). 0 when every symbol was found;
 * otherwise -1, with `why` (NUL-terminated, at most `capacity` bytes) saying which library or symbol is missing. */
int cav_load(char *why, size_t capacity);

/* The libraries this build opens, as a user would install them: "libavformat.so.59, libavcodec.so.59, …". */
const char *cav_library_names(void);

/* What to install when they are missing, for this platform ("apt install libavformat59 …", "brew install ffmpeg"). */
const char *cav_install_hint(void);

typedef struct cav_decoder cav_decoder;

/* Opens the container in the regular file `fd` of `size` bytes (FFmpeg reads only through this descriptor, never by a
 * path) and its best audio stream, resampled to mono float at `rate`. NULL on failure, with `why` set; cav_load must
 * have succeeded. The descriptor stays the caller's. */
cav_decoder *cav_open(int fd, int64_t size, int rate, char *why, size_t capacity);

/* The next samples in order: > 0 with `*samples` pointing at that many (valid until the next call), 0 at the end,
 * -1 on a damaged track (with `why` set). Silence the container places before the first frame (an MP4 edit list's
 * empty edit, which players honour) comes first, at most a minute. Damaged packets are skipped as players skip them. */
int cav_next(cav_decoder *decoder, const float **samples, char *why, size_t capacity);

void cav_close(cav_decoder *decoder);

#endif
