/* CAVCodec: FFmpeg's demuxers, decoders and resampler, for lint to hear the story (authoring only: no client module
 * links it). The few calls whose C signatures changed between FFmpeg 5.1 (Debian 12) and 7 (Homebrew), and the
 * error codes that are macros Swift cannot import, are wrapped here so the Swift side sees one API. */
#ifndef CAVCODEC_SHIM_H
#define CAVCODEC_SHIM_H
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libswresample/swresample.h>

static inline int cav_error_again(void) { return AVERROR(EAGAIN); }

/* FFmpeg reads the story through a descriptor packtool opened itself (the one non-blocking, regular-file, no-link
 * open of PackFiles), never by a path it would open on its own: a FIFO or a link swapped in after lint looked at
 * the file is never opened. */
typedef struct { int fd; int64_t size; int64_t position; } cav_file;
typedef struct { AVFormatContext *format; AVIOContext *io; } cav_input;

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

static inline void cav_close_input(cav_input *input) {
    if (input->format) avformat_close_input(&input->format);
    if (input->io) {
        void *file = input->io->opaque;
        av_freep(&input->io->buffer);
        avio_context_free(&input->io);
        av_free(file);
    }
}

/* Opens the container in the regular file `fd` of `size` bytes; on failure everything is freed (not the fd). */
static inline int cav_open_input(int fd, int64_t size, cav_input *input) {
    input->format = NULL;
    input->io = NULL;
    cav_file *file = av_mallocz(sizeof *file);
    if (!file) return AVERROR(ENOMEM);
    file->fd = fd;
    file->size = size;
    unsigned char *buffer = av_malloc(65536);
    if (!buffer) { av_free(file); return AVERROR(ENOMEM); }
    input->io = avio_alloc_context(buffer, 65536, 0, file, cav_file_read, NULL, cav_file_seek);
    if (!input->io) { av_free(buffer); av_free(file); return AVERROR(ENOMEM); }
    input->format = avformat_alloc_context();
    if (!input->format) { cav_close_input(input); return AVERROR(ENOMEM); }
    input->format->pb = input->io;
    input->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    int result = avformat_open_input(&input->format, "", NULL, NULL);  /* frees the context on failure */
    if (result < 0) cav_close_input(input);
    return result;
}
static inline int cav_error_eof(void) { return AVERROR_EOF; }

/* A resampler from the decoder's layout, format and rate to mono 32-bit float at `rate`; NULL on failure. */
static inline SwrContext *cav_mono_resampler(const AVCodecContext *codec, int rate) {
    AVChannelLayout mono;
    av_channel_layout_default(&mono, 1);
    SwrContext *swr = NULL;
    if (swr_alloc_set_opts2(&swr, &mono, AV_SAMPLE_FMT_FLT, rate, &codec->ch_layout, codec->sample_fmt,
                            codec->sample_rate, 0, NULL) < 0) return NULL;
    if (swr_init(swr) < 0) { swr_free(&swr); return NULL; }
    return swr;
}

/* Converts a decoded frame (or, with frame NULL, flushes) into `out`; returns the samples written or < 0. */
static inline int cav_convert(SwrContext *swr, float *out, int capacity, const AVFrame *frame) {
    uint8_t *planes[1] = { (uint8_t *)out };
    if (frame == NULL) return swr_convert(swr, planes, capacity, NULL, 0);
    return swr_convert(swr, planes, capacity, (const uint8_t **)frame->extended_data, frame->nb_samples);
}

/* The number of samples `cav_convert` may write for a frame of `samples` input samples. */
static inline int cav_output_capacity(SwrContext *swr, const AVCodecContext *codec, int rate, int samples) {
    return (int)av_rescale_rnd(swr_get_delay(swr, codec->sample_rate) + samples, rate, codec->sample_rate, AV_ROUND_UP) + 16;
}
#endif
