internal import CFFmpeg
import Foundation
import LookCore

// One class an FFmpeg context: each is made by a throwing init and freed once, in its deinit, so a
// part that needs several holds several of these and an init that fails half way frees exactly what
// it made. `live` counts each kind alive now, for the tests that inject a late failure.

/// A packet (`av_packet_alloc` … `av_packet_free`).
final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>
    static let live = LiveCount()

    init() throws(MediaError) {
        guard let pointer = av_packet_alloc() else { throw .failed("out of memory") }
        self.pointer = pointer
        Self.live.up()
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
        Self.live.down()
    }
}

/// A frame (`av_frame_alloc` … `av_frame_free`).
final class Picture {
    let pointer: UnsafeMutablePointer<AVFrame>
    static let live = LiveCount()

    init() throws(MediaError) {
        guard let pointer = av_frame_alloc() else { throw .failed("out of memory") }
        self.pointer = pointer
        Self.live.up()
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
        Self.live.down()
    }
}

/// A decoder's or encoder's context (`avcodec_alloc_context3` … `avcodec_free_context`).
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    static let live = LiveCount()

    init(_ codec: UnsafePointer<AVCodec>) throws(MediaError) {
        FFmpegLogging.quiet()
        guard let pointer = avcodec_alloc_context3(codec) else { throw .failed("out of memory") }
        self.pointer = pointer
        Self.live.up()
    }

    deinit {
        var p: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&p)
        Self.live.down()
    }
}

/// An open input: a file, a stream or a device (`avformat_open_input` … `avformat_close_input`),
/// with the file or socket it holds.
final class InputFormat {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    static let live = LiveCount()
    /// Asked during every blocking read: true ends it (FFmpeg's interrupt callback).
    private let interrupt: Interrupt?

    final class Interrupt {
        let check: () -> Bool
        init(_ check: @escaping () -> Bool) { self.check = check }
    }

    init(path: String, options: [String: String], interrupt check: (() -> Bool)? = nil) throws(MediaError) {
        FFmpegLogging.quiet()
        var fmt: UnsafeMutablePointer<AVFormatContext>?
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        let interrupt = check.map(Interrupt.init)
        if let interrupt {
            // Set before the open: the protocol (a socket) copies it when it opens.
            guard let made = avformat_alloc_context() else { throw .failed("out of memory") }
            made.pointee.interrupt_callback = AVIOInterruptCB(
                callback: { opaque in
                    guard let opaque else { return 0 }
                    return Unmanaged<Interrupt>.fromOpaque(opaque).takeUnretainedValue().check() ? 1 : 0
                }, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
            fmt = made
        }
        self.interrupt = interrupt
        let rc = avformat_open_input(&fmt, path, nil, &dictionary)
        av_dict_free(&dictionary)
        // On a failure avformat_open_input has freed what it made.
        guard rc >= 0, let fmt else { throw .failed(FFmpegLogging.describe(rc)) }
        pointer = fmt
        Self.live.up()
    }

    deinit {
        var p: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&p)
        Self.live.down()
    }
}

/// An output muxer (`avformat_alloc_output_context2` … `avformat_free_context`); the file it writes
/// through is its own `OutputFile`.
final class OutputFormat {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    static let live = LiveCount()

    init(format name: String, path: String) throws(MediaError) {
        FFmpegLogging.quiet()
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&ctx, nil, name, path) >= 0, let ctx else {
            throw .failed("this FFmpeg has no \(name) muxer")
        }
        pointer = ctx
        Self.live.up()
    }

    deinit {
        avformat_free_context(pointer)
        Self.live.down()
    }
}

/// The file an output muxer writes (`avio_open` … `avio_closep`), closed once: by `close()`, whose
/// result tells whether the last bytes reached the disk, or else by its deinit.
final class OutputFile {
    private let format: OutputFormat
    private var open = true

    init(_ format: OutputFormat, path: String) throws(MediaError) {
        guard avio_open(&format.pointer.pointee.pb, path, AVIO_FLAG_WRITE) >= 0 else {
            throw .failed("the file cannot be made (\(String(cString: strerror(errno))))")
        }
        self.format = format
    }

    /// Flushes and closes the file; a full disk shows here (FFmpeg's error code, negative).
    func close() -> Int32 {
        guard open else { return 0 }
        open = false
        return avio_closep(&format.pointer.pointee.pb)
    }

    deinit { _ = close() }
}
