internal import CFFmpeg

/// A failure inside FFmpeg, with its own words.
public struct MediaError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
    public static func failed(_ reason: String) -> MediaError { MediaError(reason: reason) }
}

/// FFmpeg's own logging, silenced (lookd reports failures itself, and under the service FFmpeg's
/// lines would be journal lines: libx264's statistics at every clip, libswscale's warnings), and its
/// error codes in words. Every FFmpeg context is made through a handle of this target whose init
/// calls `quiet()`, so no path (a file, a camera's clips, a snapshot) can reach FFmpeg first.
enum FFmpegLogging {
    static func quiet() { av_log_set_level(AV_LOG_QUIET) }

    /// Whether FFmpeg is silent now.
    static var isQuiet: Bool { av_log_get_level() == AV_LOG_QUIET }

    /// FFmpeg's own default (its information and warnings on standard error), as a program that
    /// never silenced it has: the tests show that each path silences it.
    static func speak() { av_log_set_level(AV_LOG_INFO) }

    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "FFmpeg error \(code)" : text.prefix(1).lowercased() + text.dropFirst()
    }
}
