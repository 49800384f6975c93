/* CAVCodec: FFmpeg's demuxers, decoders and resampler, for lint to hear the story (authoring only: no client module
 * links it). The few calls whose C signatures changed between FFmpeg 5.1 (Debian 12) and 7 (Homebrew), and the
 * error codes that are macros Swift cannot import, are wrapped here so the Swift side sees one API. */
#ifndef CAVCODEC_SHIM_H
#define CAVCODEC_SHIM_H
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libswresample/swresample.h>

static inline int cav_error_again(void) { return AVERROR(EAGAIN); }
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
