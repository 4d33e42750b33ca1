import Foundation
import TestSupport

/// A real PulseAudio server of the test's own: a null sink (no hardware), reached through a unix
/// socket in a scratch folder, and a recorder of the sink's monitor.
public final class PulseServer {
    public let folder: URL
    public let socket: String

    /// `PULSE_SERVER` for the clients that should play through this server.
    public var address: String { "unix:\(socket)" }

    public init() throws {
        folder = try Fixtures.scratch("pulse")
        socket = folder.appendingPathComponent("native").path
        try start()
    }

    deinit { stop() }

    private var runtime: String { folder.appendingPathComponent("runtime").path }

    /// Starts the server (again, after `stop`) as a daemon of its own, and waits until it answers.
    public func start() throws {
        let command = [
            "PULSE_RUNTIME_PATH='\(runtime)' HOME='\(folder.path)' /usr/bin/pulseaudio -n --daemonize=yes",
            "--exit-idle-time=-1 --use-pid-file=yes --disallow-exit",
            "-L 'module-null-sink sink_name=lookd_null rate=48000 channels=1'",
            "-L 'module-native-protocol-unix socket=\(socket) auth-anonymous=1'",
            "--log-target=file:'\(folder.appendingPathComponent("server.log").path)'",
        ].joined(separator: " ")
        try Subprocess.shell(command)
        if Poll.until(within: 15, every: 0.05, { (try? Subprocess.run("/usr/bin/pactl", ["--server", address, "info"]))?.status == 0 }) {
            return
        }
        throw NSError(domain: "PulseServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "pulseaudio did not start"])
    }

    /// Kills the server at once (as a crash would).
    public func stop() {
        let pidFile = (runtime as NSString).appendingPathComponent("pid")
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return }
        kill(pid, SIGKILL)
        Poll.until(within: 2) { !Self.isAlive(pid) }
        try? FileManager.default.removeItem(atPath: pidFile)
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Whether `pid` runs (a zombie that nobody reaped does not).
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    /// Records the sink's monitor until `stop()` is called on the result.
    public func record(to path: String) throws -> Recording {
        let p = try FixtureProcess(
            "/usr/bin/parecord",
            [
                "--server", address, "--device", "lookd_null.monitor", "--rate", "48000", "--channels", "1",
                "--format", "s16le", "--file-format=wav", path,
            ])
        usleep(300_000) // the recording stream is up before the test plays anything
        return Recording(process: p, path: path)
    }

    public final class Recording {
        let process: FixtureProcess
        public let path: String
        init(process: FixtureProcess, path: String) { self.process = process; self.path = path }

        /// Stops recording and returns the samples.
        public func stop() throws -> Audio {
            usleep(300_000)
            process.stop(SIGINT)
            return try Audio(wav: path)
        }
    }

    /// Recorded sound: 16-bit mono samples at 48 kHz, and where it was not silent.
    public struct Audio {
        public let samples: [Int16]
        public let rate = 48_000

        init(wav path: String) throws {
            let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var i = 12
            var found: [Int16] = []
            while i + 8 <= data.count {
                let id = String(decoding: data[i..<i + 4], as: UTF8.self)
                var size = Int(data[i + 4]) | Int(data[i + 5]) << 8 | Int(data[i + 6]) << 16 | Int(data[i + 7]) << 24
                if id == "data" {
                    if size == 0 || size == 0xFFFF_FFFF || i + 8 + size > data.count { size = data.count - i - 8 }
                    let body = data[(i + 8)..<(i + 8 + size - size % 2)]
                    found = stride(from: body.startIndex, to: body.endIndex, by: 2).map {
                        Int16(bitPattern: UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8)
                    }
                    break
                }
                i += 8 + size + (size & 1)
            }
            samples = found
        }

        /// RMS level of each 20 ms window, 0…1.
        public var levels: [Double] {
            let window = rate / 50
            return stride(from: 0, to: samples.count - window, by: window).map { start in
                let sum = samples[start..<start + window].reduce(0.0) { $0 + Double($1) * Double($1) }
                return (sum / Double(window)).squareRoot() / 32768
            }
        }

        /// Seconds of sound above `threshold` RMS, from the first loud window to the last.
        public func soundSpan(threshold: Double = 0.003) -> (start: Double, length: Double)? {
            let l = levels
            guard let first = l.firstIndex(where: { $0 > threshold }), let last = l.lastIndex(where: { $0 > threshold }) else { return nil }
            return (Double(first) * 0.02, Double(last - first + 1) * 0.02)
        }

        /// How much the level varies between windows while there is sound (speech rises and falls
        /// with its syllables; a steady tone hardly varies).
        public func levelVariation(threshold: Double = 0.003) -> Double {
            let loud = levels.filter { $0 > threshold }
            guard loud.count > 2 else { return 0 }
            let mean = loud.reduce(0, +) / Double(loud.count)
            let sd = (loud.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(loud.count)).squareRoot()
            return sd / mean
        }
    }
}
