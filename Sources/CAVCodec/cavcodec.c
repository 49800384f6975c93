/* FFmpeg opened on first use (see include/cavcodec.h). The headers give the types and the macros; every function is
 * reached through a pointer found with dlsym, declared with the header's own type (__typeof__), so a signature that
 * differs between FFmpeg 5.1 (Debian 12) and 7 (Homebrew) is taken from the headers the build sees. */
#include "cavcodec.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libswresample/swresample.h>

#define CAV_STR2(x) #x
#define CAV_STR(x) CAV_STR2(x)

#if defined(__APPLE__)
#define CAV_SONAME(lib, major) "lib" lib "." CAV_STR(major) ".dylib"
/* Absolute folders only: given a bare name, dyld also searches the working folder of a command-line tool, and lint
 * runs inside folders someone else made (a pack holding a libavutil.59.dylib would run it). */
static const char *const cav_folders[] = { "/opt/homebrew/opt/ffmpeg/lib/", "/opt/homebrew/lib/", "/usr/local/opt/ffmpeg/lib/",
                                           "/usr/local/lib/", "/opt/local/lib/", NULL };
static const char cav_hint[] = "brew install ffmpeg";
#else
#define CAV_SONAME(lib, major) "lib" lib ".so." CAV_STR(major)
static const char *const cav_folders[] = { "", NULL };
/* Debian and Ubuntu name each runtime package after its soname. */
static const char cav_hint[] = "apt install libavformat" CAV_STR(LIBAVFORMAT_VERSION_MAJOR) " libavcodec" CAV_STR(LIBAVCODEC_VERSION_MAJOR)
                               " libswresample" CAV_STR(LIBSWRESAMPLE_VERSION_MAJOR) " (the ffmpeg package brings them)";
#endif

/* In dependency order: each library's own dependencies are open before it. */
enum { CAV_AVUTIL, CAV_SWRESAMPLE, CAV_AVCODEC, CAV_AVFORMAT, CAV_LIBRARIES };
static const char *const cav_sonames[CAV_LIBRARIES] = {
    CAV_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), CAV_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR),
    CAV_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), CAV_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
};
static const char cav_names[] = CAV_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR) ", " CAV_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR)
    ", " CAV_SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR) ", " CAV_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR);

const char *cav_library_names(void) { return cav_names; }
const char *cav_install_hint(void) { return cav_hint; }

/* The functions used, each typed as its header declares it. */
#define CAV_FUNCTIONS(X) \
    X(CAV_AVUTIL, av_log_set_level) X(CAV_AVUTIL, av_malloc) X(CAV_AVUTIL, av_mallocz) X(CAV_AVUTIL, av_free) \
    X(CAV_AVUTIL, av_freep) X(CAV_AVUTIL, av_frame_alloc) X(CAV_AVUTIL, av_frame_free) X(CAV_AVUTIL, av_frame_unref) \
    X(CAV_AVUTIL, av_channel_layout_default) X(CAV_AVUTIL, av_rescale_rnd) X(CAV_AVUTIL, av_strdup) \
    X(CAV_SWRESAMPLE, swr_alloc_set_opts2) X(CAV_SWRESAMPLE, swr_init) X(CAV_SWRESAMPLE, swr_free) \
    X(CAV_SWRESAMPLE, swr_convert) X(CAV_SWRESAMPLE, swr_get_delay) \
    X(CAV_AVCODEC, avcodec_alloc_context3) X(CAV_AVCODEC, avcodec_free_context) X(CAV_AVCODEC, avcodec_parameters_to_context) \
    X(CAV_AVCODEC, avcodec_open2) X(CAV_AVCODEC, avcodec_send_packet) X(CAV_AVCODEC, avcodec_receive_frame) \
    X(CAV_AVCODEC, av_packet_alloc) X(CAV_AVCODEC, av_packet_free) X(CAV_AVCODEC, av_packet_unref) \
    X(CAV_AVFORMAT, avformat_alloc_context) X(CAV_AVFORMAT, avformat_open_input) X(CAV_AVFORMAT, avformat_find_stream_info) \
    X(CAV_AVFORMAT, av_find_best_stream) X(CAV_AVFORMAT, avformat_close_input) X(CAV_AVFORMAT, av_read_frame) \
    X(CAV_AVFORMAT, avio_alloc_context) X(CAV_AVFORMAT, avio_context_free) X(CAV_AVFORMAT, av_find_input_format)

#define CAV_DECLARE(library, name) __typeof__(&name) name;
static struct { CAV_FUNCTIONS(CAV_DECLARE) } av;

static pthread_once_t cav_once = PTHREAD_ONCE_INIT;
static int cav_loaded = -1;
static char cav_why[512];

static void *cav_open_library(const char *soname, char *error, size_t capacity) {
    const char *env = getenv("PACKTOOL_FFMPEG_LIBRARY_PATH");
    char path[1024];
    error[0] = 0;
    for (int i = 0; env ? i == 0 : cav_folders[i] != NULL; i++) {
        const char *folder = env ? env : cav_folders[i];
        int n = snprintf(path, sizeof path, "%s%s%s", folder, (env && *env && folder[strlen(folder) - 1] != '/') ? "/" : "", soname);
        if (n < 0 || (size_t)n >= sizeof path) {
            if (!error[0]) snprintf(error, capacity, "the folder's path is too long");
            continue;
        }
        void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (handle) return handle;
        if (!error[0]) { const char *e = dlerror(); snprintf(error, capacity, "%s", e ? e : soname); }
    }
    return NULL;
}

static void cav_load_once(void) {
    void *handles[CAV_LIBRARIES] = { 0 };
    char error[400];
    for (int i = 0; i < CAV_LIBRARIES; i++) {
        handles[i] = cav_open_library(cav_sonames[i], error, sizeof error);
        if (!handles[i]) {
            snprintf(cav_why, sizeof cav_why, "%s cannot be opened (%s)", cav_sonames[i], error);
            return;
        }
    }
#define CAV_RESOLVE(library, name) \
    if (!(av.name = (__typeof__(&name))dlsym(handles[library], #name))) { \
        snprintf(cav_why, sizeof cav_why, "%s has no %s (another FFmpeg version?)", cav_sonames[library], #name); \
        return; \
    }
    CAV_FUNCTIONS(CAV_RESOLVE)
#undef CAV_RESOLVE
    av.av_log_set_level(AV_LOG_QUIET);
    cav_loaded = 0;
    /* The handles stay open for the life of the process: the pointers above point into them. */
}

int cav_load(char *why, size_t capacity) {
    pthread_once(&cav_once, cav_load_once);
    if (cav_loaded != 0 && why && capacity) snprintf(why, capacity, "%s", cav_why);
    return cav_loaded;
}

/* FFmpeg reads the story through a descriptor packtool opened itself (PackFiles' non-blocking, regular-file, no-link
 * open), never by a path it would open on its own: a FIFO or a link swapped in after lint looked is never opened. */
typedef struct { int fd; int64_t size; int64_t position; } cav_file;

static int cav_file_read(void *opaque, uint8_t *buffer, int size) {
    cav_file *file = opaque;
    if (file->position >= file->size) return AVERROR_EOF;
    ssize_t n;
    do { n = pread(file->fd, buffer, (size_t)size, (off_t)file->position); } while (n < 0 && errno == EINTR);
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    file->position += n;
    return (int)n;
}

static int64_t cav_file_seek(void *opaque, int64_t offset, int whence) {
    cav_file *file = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return file->size;
    int64_t target = whence == SEEK_SET ? offset : whence == SEEK_CUR ? file->position + offset : whence == SEEK_END ? file->size + offset : -1;
    if (target < 0) return AVERROR(EINVAL);
    file->position = target;
    return target;
}

/* A story is MP4 (DESIGN.md §3): only the MP4/MOV demuxer reads it. FFmpeg would otherwise try every demuxer it has,
 * and some (concat lists, HLS, DASH) open the files and URLs a hostile "story" names; and no demuxer may open any other
 * file or URL (an MP4's external data references): every io_open is refused. */
static int cav_refuse_io_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)s; (void)pb; (void)url; (void)flags; (void)options;
    return AVERROR(EPERM);
}

struct cav_decoder {
    AVFormatContext *format;
    AVIOContext *io;
    cav_file *file;
    AVCodecContext *codec;
    SwrContext *resampler;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int rate;
    /* What the resampler was made for: a frame in another rate, sample format or channel count (a decoder may change
     * them partway) gets a new one, never a read past the planes it has. */
    int in_rate;
    int in_format;
    int in_channels;
    int failed;           /* a -1 was returned: every later call returns -1 too */
    AVRational time_base;
    int started;          /* the first frame has been handed out (after its lead of silence) */
    int flushing;         /* the file is read to its end and the decoder told so */
    int finished;         /* the decoder has said end of stream and the resampler is flushed */
    float *buffer;
    int capacity;
};

/* A resampler from `layout`, `format` and `rate` to mono float at the decoder's rate, replacing any earlier one. */
static int cav_resampler(cav_decoder *d, AVChannelLayout *layout, int format, int rate) {
    if (d->resampler) av.swr_free(&d->resampler);
    if (rate <= 0 || layout->nb_channels <= 0) return -1;
    AVChannelLayout mono;
    av.av_channel_layout_default(&mono, 1);
    if (av.swr_alloc_set_opts2(&d->resampler, &mono, AV_SAMPLE_FMT_FLT, d->rate, layout, format, rate, 0, NULL) < 0 ||
        av.swr_init(d->resampler) < 0) {
        if (d->resampler) av.swr_free(&d->resampler);
        return -1;
    }
    d->in_rate = rate;
    d->in_format = format;
    d->in_channels = layout->nb_channels;
    return 0;
}

void cav_close(cav_decoder *d) {
    if (!d) return;
    if (d->frame) av.av_frame_free(&d->frame);
    if (d->packet) av.av_packet_free(&d->packet);
    if (d->resampler) av.swr_free(&d->resampler);
    if (d->codec) av.avcodec_free_context(&d->codec);
    if (d->format) av.avformat_close_input(&d->format);
    if (d->io) {
        av.av_freep(&d->io->buffer);
        av.avio_context_free(&d->io);
    }
    av.av_free(d->file);
    free(d->buffer);
    free(d);
}

static cav_decoder *cav_fail(cav_decoder *d, char *why, size_t capacity, const char *reason) {
    if (why && capacity) snprintf(why, capacity, "%s", reason);
    cav_close(d);
    return NULL;
}

/* Ends the decode with `reason`: this call and every later one return -1. */
static int cav_error(cav_decoder *d, char *why, size_t capacity, const char *reason) {
    d->failed = 1;
    if (why && capacity) snprintf(why, capacity, "%s", reason);
    return -1;
}

cav_decoder *cav_open(int fd, int64_t size, int rate, char *why, size_t capacity) {
    if (cav_load(NULL, 0) != 0) { if (why && capacity) snprintf(why, capacity, "FFmpeg is not loaded"); return NULL; }
    cav_decoder *d = calloc(1, sizeof *d);
    if (!d) { if (why && capacity) snprintf(why, capacity, "out of memory"); return NULL; }
    d->rate = rate;
    d->file = av.av_mallocz(sizeof *d->file);
    unsigned char *io_buffer = av.av_malloc(65536);
    if (!d->file || !io_buffer) { av.av_free(io_buffer); return cav_fail(d, why, capacity, "out of memory"); }
    d->file->fd = fd;
    d->file->size = size;
    d->io = av.avio_alloc_context(io_buffer, 65536, 0, d->file, cav_file_read, NULL, cav_file_seek);
    if (!d->io) { av.av_free(io_buffer); return cav_fail(d, why, capacity, "out of memory"); }
    d->format = av.avformat_alloc_context();
    if (!d->format) return cav_fail(d, why, capacity, "out of memory");
    d->format->pb = d->io;
    d->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    d->format->io_open = cav_refuse_io_open;
    d->format->protocol_whitelist = av.av_strdup("");
    const AVInputFormat *mp4 = av.av_find_input_format("mov");
    if (!mp4 || !d->format->protocol_whitelist) return cav_fail(d, why, capacity, "FFmpeg has no MP4 demuxer");
    if (av.avformat_open_input(&d->format, "", mp4, NULL) < 0) {  /* frees the context on failure */
        d->format = NULL;
        return cav_fail(d, why, capacity, "cannot open it as audio");
    }
    if (av.avformat_find_stream_info(d->format, NULL) < 0) return cav_fail(d, why, capacity, "cannot read its streams");
    const AVCodec *decoder = NULL;
    d->stream = av.av_find_best_stream(d->format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (d->stream < 0 || !decoder) return cav_fail(d, why, capacity, "it has no sound track FFmpeg can decode");
    AVStream *stream = d->format->streams[d->stream];
    d->time_base = stream->time_base;
    d->codec = av.avcodec_alloc_context3(decoder);
    if (!d->codec) return cav_fail(d, why, capacity, "out of memory");
    if (av.avcodec_parameters_to_context(d->codec, stream->codecpar) < 0 || av.avcodec_open2(d->codec, decoder, NULL) < 0)
        return cav_fail(d, why, capacity, "its decoder cannot be opened");
    if (cav_resampler(d, &d->codec->ch_layout, d->codec->sample_fmt, d->codec->sample_rate) < 0)
        return cav_fail(d, why, capacity, "its samples cannot be converted (rate or channel layout)");
    d->packet = av.av_packet_alloc();
    d->frame = av.av_frame_alloc();
    if (!d->packet || !d->frame) return cav_fail(d, why, capacity, "out of memory");
    return d;
}

/* Room for `samples` output samples in the decoder's buffer; 0 on failure. */
static int cav_reserve(cav_decoder *d, int64_t samples) {
    if (samples > (int64_t)1 << 28) return 0;
    if (samples <= d->capacity) return 1;
    float *grown = realloc(d->buffer, (size_t)samples * sizeof(float));
    if (!grown) return 0;
    d->buffer = grown;
    d->capacity = (int)samples;
    return 1;
}

/* Converts the current frame (or, with `frame` NULL, what the resampler still holds) into the buffer after `offset`
 * samples; returns the samples written or -1. */
static int cav_convert(cav_decoder *d, const AVFrame *frame, int64_t offset, char *why, size_t capacity) {
    int in = frame ? frame->nb_samples : 0;
    int64_t room = av.av_rescale_rnd(av.swr_get_delay(d->resampler, d->in_rate) + in, d->rate, d->in_rate, AV_ROUND_UP) + 16;
    if (!cav_reserve(d, offset + room)) return cav_error(d, why, capacity, "out of memory");
    uint8_t *planes[1] = { (uint8_t *)(d->buffer + offset) };
    int written = frame ? av.swr_convert(d->resampler, planes, (int)room, (const uint8_t **)frame->extended_data, in)
                        : av.swr_convert(d->resampler, planes, (int)room, NULL, 0);
    if (written < 0) return cav_error(d, why, capacity, "its samples cannot be converted");
    return written;
}

/* The silence before the first frame, from its time stamp: at most a minute of samples. */
static int64_t cav_lead(const cav_decoder *d, const AVFrame *frame) {
    int64_t ts = frame->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE || ts <= 0 || d->time_base.den <= 0 || d->time_base.num <= 0) return 0;
    double lead = (double)ts * d->time_base.num / d->time_base.den;
    return (int64_t)((lead > 60 ? 60 : lead) * d->rate);
}

int cav_next(cav_decoder *d, const float **samples, char *why, size_t capacity) {
    if (d->failed) return cav_error(d, why, capacity, "the decode already failed");
    while (1) {
        if (d->finished) return 0;
        int got = av.avcodec_receive_frame(d->codec, d->frame);
        if (got == 0) {
            /* The first frame comes after its lead of silence, in the same chunk. */
            int64_t lead = d->started ? 0 : cav_lead(d, d->frame);
            d->started = 1;
            if (lead > 0) {
                if (!cav_reserve(d, lead)) { av.av_frame_unref(d->frame); return cav_error(d, why, capacity, "out of memory"); }
                memset(d->buffer, 0, (size_t)lead * sizeof(float));
            }
            if (d->frame->sample_rate != d->in_rate || d->frame->format != d->in_format ||
                d->frame->ch_layout.nb_channels != d->in_channels) {
                /* The samples the old resampler still holds are dropped (less than a frame): a format change is
                 * rare in a story, and reading the new frame through the old one would read past its planes. */
                if (cav_resampler(d, &d->frame->ch_layout, d->frame->format, d->frame->sample_rate) < 0) {
                    av.av_frame_unref(d->frame);
                    return cav_error(d, why, capacity, "its sound changes to a rate or channel layout that cannot be converted");
                }
            }
            int written = cav_convert(d, d->frame, lead, why, capacity);
            av.av_frame_unref(d->frame);
            if (written < 0) return -1;
            if (lead + written > 0) { *samples = d->buffer; return (int)(lead + written); }
            continue;
        }
        if (got == AVERROR_EOF || (got == AVERROR(EAGAIN) && d->flushing)) {
            d->finished = 1;
            int written = cav_convert(d, NULL, 0, why, capacity);
            if (written < 0) return -1;
            if (written > 0) { *samples = d->buffer; return written; }
            return 0;
        }
        if (got != AVERROR(EAGAIN)) return cav_error(d, why, capacity, "the sound track is damaged (decoding failed)");
        int read = av.av_read_frame(d->format, d->packet);
        if (read < 0) {
            /* End of file (or a read error, treated alike): flush the decoder. */
            av.avcodec_send_packet(d->codec, NULL);
            d->flushing = 1;
            continue;
        }
        if (d->packet->stream_index == d->stream) {
            /* A damaged packet is skipped as players do; the decoder says so for the next frames if the track is lost. */
            (void)av.avcodec_send_packet(d->codec, d->packet);
        }
        av.av_packet_unref(d->packet);
    }
}
