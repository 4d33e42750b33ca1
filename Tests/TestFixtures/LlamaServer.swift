import Foundation
import TestSupport

/// The pinned llama.cpp's own llama-server (built by tools/build-llama-tools into
/// .deps/llama-tools/bin), serving a model pair on a free loopback port, for the remote engine's tests.
public final class LlamaServer {
    public let port: Int
    private let process: FixtureProcess

    public static var binary: String { Fixtures.root.appendingPathComponent(".deps/llama-tools/bin/llama-server").path }

    public init(model: String, mmproj: String, parallel: Int = 1, context: Int = 4096, binary: String = LlamaServer.binary) throws {
        port = LoopbackPort.free()
        // A binary that cannot start throws here, and nothing is signalled (FixtureProcess).
        process = try FixtureProcess(
            binary,
            [
                "-m", model, "--mmproj", mmproj, "--host", "127.0.0.1", "--port", String(port), "-c", String(context * parallel),
                "--parallel", String(parallel), "--no-webui", "--threads", "2",
            ])
        // Ready once /health answers 200 (it answers 503 while the model loads).
        var up = false
        try Poll.until(within: 60, every: 0.1) {
            let r = try Subprocess.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/health"])
            up = r.stdout == "200"
            return up || !process.isRunning
        }
        if up { return }
        throw NSError(domain: "LlamaServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "llama-server did not start on \(port)"])
    }

    public var url: String { "http://127.0.0.1:\(port)/v1" }
}
