internal import CFFmpeg

/// A failure inside FFmpeg, with its own words.
public struct MediaError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
    public static func failed(_ reason: String) -> MediaError { MediaError(reason: reason) }
}

/// FFmpeg's own logging, silenced (lookd reports failures itself), and its error codes in words.
enum FFmpegLogging {
    private static let once: Void = { av_log_set_level(AV_LOG_QUIET) }()
    static func quiet() { _ = once }

    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "FFmpeg error \(code)" : text.prefix(1).lowercased() + text.dropFirst()
    }
}
