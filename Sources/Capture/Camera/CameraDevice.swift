internal import CV4L2
import Foundation
import LookCore

/// A camera's descriptor through libv4l2 (`v4l2_open` … `v4l2_close`), closed once.
final class CameraDescriptor {
    let fd: Int32
    /// Descriptors open now (for the tests).
    static let live = LiveCount()

    /// Opens `path` (libv4l2 checks that it is a V4L2 device).
    convenience init(path: String) throws(CaptureError) {
        // Into a local first: a stored property set before the throw would make deinit close -1.
        let fd = cv4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw CameraErrors.open(path, errno: errno) }
        self.init(adopting: fd)
    }

    /// Takes over an open descriptor (libv4l2 passes the calls on a plain file through to the system).
    init(adopting fd: Int32) {
        self.fd = fd
        Self.live.up()
    }

    deinit {
        v4l2_close(fd)
        Self.live.down()
    }
}

/// One capture buffer mapped from the driver (`v4l2_mmap` … `v4l2_munmap`), unmapped once.
final class CameraBuffer {
    let start: UnsafeMutableRawPointer
    let length: Int
    static let live = LiveCount()

    init(_ descriptor: CameraDescriptor, length: Int, offset: Int, path: String) throws(CaptureError) {
        let start = cv4l2_mmap(descriptor.fd, length, offset)
        guard let start, cv4l2_is_failed_map(start) == 0 else { throw CameraErrors.failed(path, "mmap: \(CameraDevice.errnoText())") }
        self.start = start
        self.length = length
        Self.live.up()
    }

    deinit {
        v4l2_munmap(start, length)
        Self.live.down()
    }
}

/// One open V4L2 camera, streaming RGB24 through mmap'd buffers. libv4l converts what the camera
/// gives (YUYV, MJPEG, …) to RGB24. The descriptor and each buffer are objects of their own, so a
/// setup that fails at any step closes and unmaps exactly what it had; streaming stops on deinit.
final class CameraDevice {
    let path: String
    let width: Int
    let height: Int
    /// The camera's own pixel format and driver, for the records (`YUYV · vivid`).
    let native: String
    private let descriptor: CameraDescriptor
    private var fd: Int32 { descriptor.fd }
    private var buffers: [CameraBuffer] = []
    private var streaming = false

    /// Opens `path` and negotiates RGB24 at the camera's largest size whose long side is at most
    /// `maxSide` (the smallest it has when all are larger).
    init(path: String, maxSide: Int) throws(CaptureError) {
        self.path = path
        descriptor = try CameraDescriptor(path: path)
        let fd = descriptor.fd

        var cap = v4l2_capability()
        guard cv4l2_querycap(fd, &cap) == 0 else { throw CameraErrors.failed(path, "it is not a V4L2 device (\(Self.errnoText()))") }
        let caps = cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0, caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw .cameraNoFormat(device: path, reason: "it does not capture video by streaming")
        }
        let driver = withUnsafeBytes(of: cap.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }

        let (nativeFormat, sizes) = Self.nativeFormat(fd)
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        _ = cv4l2_g_fmt(fd, &format)
        let current = (Int(format.fmt.pix.width), Int(format.fmt.pix.height))
        let (w, h) = CameraFormat.choose(sizes: sizes.isEmpty ? [current] : sizes, maxSide: maxSide)
        format.fmt.pix.width = UInt32(w)
        format.fmt.pix.height = UInt32(h)
        format.fmt.pix.pixelformat = Self.fourcc("RGB3")
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        guard cv4l2_s_fmt(fd, &format) == 0 else {
            throw errno == EBUSY
                ? .cameraBusy(device: path) : .cameraNoFormat(device: path, reason: "RGB24 at \(w)×\(h) was refused (\(Self.errnoText()))")
        }
        guard format.fmt.pix.pixelformat == Self.fourcc("RGB3") else {
            throw .cameraNoFormat(device: path, reason: "libv4l cannot convert \(Self.fourccText(nativeFormat)) to RGB24")
        }
        width = Int(format.fmt.pix.width)
        height = Int(format.fmt.pix.height)
        native = "\(Self.fourccText(nativeFormat)) · \(driver)"

        var request = v4l2_requestbuffers()
        request.count = 4
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        guard cv4l2_reqbufs(fd, &request) == 0, request.count >= 2 else {
            throw errno == EBUSY ? .cameraBusy(device: path) : CameraErrors.failed(path, "no capture buffers (\(Self.errnoText()))")
        }
        for i in 0..<request.count {
            var buf = Self.buffer(index: i)
            guard cv4l2_querybuf(fd, &buf) == 0 else { throw CameraErrors.failed(path, "buffer \(i): \(Self.errnoText())") }
            buffers.append(try CameraBuffer(descriptor, length: Int(buf.length), offset: Int(buf.m.offset), path: path))
            guard cv4l2_qbuf(fd, &buf) == 0 else { throw CameraErrors.failed(path, "queueing: \(Self.errnoText())") }
        }
        guard cv4l2_streamon(fd) == 0 else {
            throw errno == EBUSY ? .cameraBusy(device: path) : CameraErrors.failed(path, "streaming did not start (\(Self.errnoText()))")
        }
        streaming = true
    }

    /// The camera's first own format and its sizes (libv4l converts it to RGB24); 0 and none when it
    /// names none.
    private static func nativeFormat(_ fd: Int32) -> (UInt32, [(Int, Int)]) {
        var desc = v4l2_fmtdesc()
        desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        var nativeFormat: UInt32 = 0
        while cv4l2_enum_fmt(fd, &desc) == 0 {
            if desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) == 0 { nativeFormat = desc.pixelformat; break }
            desc.index += 1
        }
        var sizes: [(Int, Int)] = []
        var frmsize = v4l2_frmsizeenum()
        frmsize.pixel_format = nativeFormat
        while nativeFormat != 0, cv4l2_enum_framesizes(fd, &frmsize) == 0 {
            if frmsize.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append((Int(frmsize.discrete.width), Int(frmsize.discrete.height)))
            } else {
                sizes.append((Int(frmsize.stepwise.max_width), Int(frmsize.stepwise.max_height)))
                sizes.append((Int(frmsize.stepwise.min_width), Int(frmsize.stepwise.min_height)))
                break
            }
            frmsize.index += 1
        }
        return (nativeFormat, sizes)
    }

    /// Streaming off; the buffers unmap and the descriptor closes as their objects go.
    deinit { if streaming { _ = cv4l2_streamoff(fd) } }

    /// A picture from the camera within `timeout` seconds, nil when none came; throws when the camera
    /// failed or went away. `captured` is the driver's timestamp on the monotonic clock when it has one.
    func read(timeout: Double) throws(CaptureError) -> (image: RGBImage, captured: Double?)? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = poll(&p, 1, Int32(timeout * 1000))
        if n < 0 { if errno == EINTR { return nil }; throw CameraErrors.failed(path, "poll: \(Self.errnoText())") }
        if n == 0 { return nil }
        if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && p.revents & Int16(POLLIN) == 0 {
            throw CameraErrors.failed(path, "the device went away")
        }
        var buf = Self.buffer(index: 0)
        guard cv4l2_dqbuf(fd, &buf) == 0 else {
            if errno == EAGAIN { return nil }
            throw CameraErrors.failed(path, Self.errnoText())
        }
        defer { _ = cv4l2_qbuf(fd, &buf) }
        let bytes = width * height * 3
        let used = Int(buf.bytesused)
        guard Int(buf.index) < buffers.count, used >= bytes else { return nil }
        let pixels = [UInt8](UnsafeRawBufferPointer(start: buffers[Int(buf.index)].start, count: bytes))
        let monotonic = buf.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let stamp = Double(buf.timestamp.tv_sec) + Double(buf.timestamp.tv_usec) / 1e6
        return (RGBImage(width: width, height: height, pixels: pixels)!, monotonic && stamp > 0 ? stamp : nil)
    }

    private static func buffer(index: UInt32) -> v4l2_buffer {
        var b = v4l2_buffer()
        b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        b.memory = V4L2_MEMORY_MMAP.rawValue
        b.index = index
        return b
    }

    static func fourcc(_ s: String) -> UInt32 {
        s.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    static func fourccText(_ v: UInt32) -> String {
        v == 0 ? "unknown" : String(decoding: (0..<4).map { UInt8((v >> (8 * $0)) & 0xff) }, as: UTF8.self)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
