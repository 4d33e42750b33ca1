// FFmpeg's libraries from Debian: demuxing, decoding and scaling photos and video.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>

// AVERROR is a macro Swift cannot import; these are its common values.
static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
