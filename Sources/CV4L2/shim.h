// libv4l2 from Debian: the camera, with libv4l converting what the camera gives to RGB24.
// The VIDIOC_* request numbers are macros Swift cannot import; these wrappers pass them.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

static inline int cv4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int cv4l2_querycap(int fd, struct v4l2_capability *c) { return v4l2_ioctl(fd, VIDIOC_QUERYCAP, c); }
static inline int cv4l2_enum_fmt(int fd, struct v4l2_fmtdesc *f) { return v4l2_ioctl(fd, VIDIOC_ENUM_FMT, f); }
static inline int cv4l2_enum_framesizes(int fd, struct v4l2_frmsizeenum *s) { return v4l2_ioctl(fd, VIDIOC_ENUM_FRAMESIZES, s); }
static inline int cv4l2_g_fmt(int fd, struct v4l2_format *f) { return v4l2_ioctl(fd, VIDIOC_G_FMT, f); }
static inline int cv4l2_s_fmt(int fd, struct v4l2_format *f) { return v4l2_ioctl(fd, VIDIOC_S_FMT, f); }
static inline int cv4l2_reqbufs(int fd, struct v4l2_requestbuffers *r) { return v4l2_ioctl(fd, VIDIOC_REQBUFS, r); }
static inline int cv4l2_querybuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_QUERYBUF, b); }
static inline int cv4l2_qbuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_QBUF, b); }
static inline int cv4l2_dqbuf(int fd, struct v4l2_buffer *b) { return v4l2_ioctl(fd, VIDIOC_DQBUF, b); }
static inline int cv4l2_streamon(int fd) { int t = V4L2_BUF_TYPE_VIDEO_CAPTURE; return v4l2_ioctl(fd, VIDIOC_STREAMON, &t); }
static inline int cv4l2_streamoff(int fd) { int t = V4L2_BUF_TYPE_VIDEO_CAPTURE; return v4l2_ioctl(fd, VIDIOC_STREAMOFF, &t); }
static inline void *cv4l2_mmap(int fd, size_t length, long offset) {
    return v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
}
static inline int cv4l2_is_failed_map(void *p) { return p == MAP_FAILED; }
