import Capture
import Config
import Foundation
import Gate
import LookCore
import Reactions
import Records
import Rules
import Settings
import VLM
import Watch

/// tools/bench-gate's measuring half: runs the real watch loop over a scene twice, gated and
/// ungated, on a simulated clock, with an engine whose answers depend on the picture (yes when a
/// rule's colour covers 1 % of it) and that costs a fixed 6 s of the loop's clock per question.
/// Prints numbers; asserts nothing.
///
/// Usage: bench-gate CLIP EVENTS [--gate-max S] [--cost S]
///   EVENTS: colour:start:end,… (seconds into the clip), e.g. red:70:85,green:170:190

/// A clock the loop moves: sleeping advances it at once.
final class SimulatedClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var t = 0.0
    private var alarms: [(due: Double, work: @Sendable () -> Void)] = []
    func now() -> Double { lock.withLock { t } }
    func date() -> Date { Date(timeIntervalSince1970: 1_796_126_400 + now()) }
    func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) { lock.withLock { alarms.append((t + max(0, seconds), work)) } }
    func sleep(_ seconds: Double) {
        let due = lock.withLock { () -> [@Sendable () -> Void] in
            t += max(0, seconds)
            let due = alarms.filter { $0.due <= t }.map(\.work)
            alarms.removeAll { $0.due <= t }
            return due
        }
        for work in due { work() }
    }
}

/// An engine that answers by colour: rule `i` is yes when the picture has enough of colour `i`.
final class ColourEngine: VisionLanguageModel, @unchecked Sendable {
    let colours: [(r: Int, g: Int, b: Int)]
    let clock: SimulatedClock
    let cost: Double
    private(set) var questions = 0
    var engineName: String { "colour engine (bench)" }

    init(colours: [(r: Int, g: Int, b: Int)], clock: SimulatedClock, cost: Double) {
        (self.colours, self.clock, self.cost) = (colours, clock, cost)
    }

    func encode(_ image: RGBImage) throws -> EncodedImage { EncodedImage(image: image, encodeSeconds: 0, tokenCount: 0) }

    func generate(image: EncodedImage, prompt: String, maxTokens: Int, cancellation: Cancellation?, onText: (String) -> Void) throws
        -> Generation
    {
        questions += 1
        let pixels = image.image.pixels
        var counts = [Int](repeating: 0, count: colours.count)
        for i in stride(from: 0, to: pixels.count, by: 3) {
            let (r, g, b) = (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
            for (k, c) in colours.enumerated() where abs(r - c.r) < 60 && abs(g - c.g) < 60 && abs(b - c.b) < 60 { counts[k] += 1 }
        }
        let total = pixels.count / 3
        let text = counts.enumerated().map { "\($0.offset + 1). \($0.element * 100 >= total ? "Yes" : "No")" }.joined(separator: "\n")
        clock.sleep(cost)
        return Generation(
            text: text, stop: .endOfText,
            timings: GenerationTimings(firstToken: cost, total: cost, imageEncode: 0, inputTokens: 0, outputTokens: colours.count * 4))
    }
}

let palette: [String: (r: Int, g: Int, b: Int)] = [
    "red": (220, 40, 40), "green": (40, 200, 40), "blue": (40, 60, 220), "yellow": (230, 220, 40), "magenta": (210, 40, 210),
]

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 2 else {
    FileHandle.standardError.write(Data("usage: bench-gate CLIP EVENTS [--gate-max S] [--cost S]\n".utf8))
    exit(2)
}
let clip = args[0]
let events: [(colour: String, start: Double, end: Double)] = args[1].split(separator: ",").map {
    let p = $0.split(separator: ":")
    return (String(p[0]), Double(p[1])!, Double(p[2])!)
}
func option(_ name: String, _ fallback: Double) -> Double {
    args.firstIndex(of: name).flatMap { Double(args[$0 + 1]) } ?? fallback
}
let gateMax = option("--gate-max", 60)
let cost = option("--cost", 6)
let colourNames = events.map(\.colour)
let rules = colourNames.map { "a \($0) square=count" }.joined(separator: "|")

struct Result {
    var calls = 0
    var cpu = 0.0
    var wall = 0.0
    var fires: [(rule: Int, t: Double)] = []
    var offered = 0
    var skipped = 0
    var simulated = 0.0
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func run(gated: Bool) throws -> Result {
    let clock = SimulatedClock()
    let source = try VideoFileSource(path: clip, pace: .realtime, maxSide: 448, clock: clock)
    let engine = ColourEngine(colours: colourNames.map { palette[$0]! }, clock: clock, cost: cost)
    var config = WatchConfig(source: clip, rules: rules)
    config.gate.enabled = gated
    config.gate.maxSeconds = gateMax
    // The ticking clock drawn in the top right corner.
    config.gate.masks = [GateMask(left: 0.8, top: 0, right: 1, bottom: 0.15)]
    let set = try InlineRules.parse(rules)
    let fires = FireTimes()
    let loop = WatchLoop(
        source: source, model: engine, rules: set.rules, config: config, events: EventStream([fires]), epoch: 0,
        reactor: Reactor(audio: nil, log: Log(threshold: .error), clock: MonotonicClock()), clock: clock)
    var result = Result()
    let cpu0 = cpuSeconds()
    let wall0 = Date()
    _ = try loop.run()
    result.cpu = cpuSeconds() - cpu0
    result.wall = Date().timeIntervalSince(wall0)
    result.fires = fires.times
    result.calls = engine.questions
    result.offered = loop.gateCounts.offered
    result.skipped = loop.gateCounts.skipped
    result.simulated = clock.now()
    return result
}

/// Each fire's rule and time: a fire happens when the frame's answer is read, its capture time
/// plus the question's time.
final class FireTimes: WatchOutput, @unchecked Sendable {
    let name = "fires"
    var times: [(Int, Double)] = []

    func receive(_ event: WatchEvent) {
        guard case .answered(let frame) = event else { return }
        for i in frame.fired { times.append((i, frame.captureT + frame.done)) }
    }
}

func median(_ xs: [Double]) -> Double? {
    let s = xs.sorted()
    guard !s.isEmpty else { return nil }
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

Log.shared.threshold = .error
print("bench-gate: \(clip), \(events.count) events, \(cost) s of simulated model time a question, --gate-max \(gateMax)")
var table: [(String, Result)] = []
for gated in [false, true] {
    let r = try run(gated: gated)
    table.append((gated ? "gated" : "ungated", r))
}
func fmt(_ x: Double?) -> String { x.map { String(format: "%.1f", $0) } ?? "—" }
print("\n| | ungated | gated |\n|---|---|---|")
let (u, g) = (table[0].1, table[1].1)
print("| simulated seconds | \(fmt(u.simulated)) | \(fmt(g.simulated)) |")
print("| frames taken | \(u.offered) | \(g.offered) |")
print("| frames skipped | \(u.skipped) | \(g.skipped) |")
print("| model calls | \(u.calls) | \(g.calls) |")
print("| CPU seconds outside the model | \(String(format: "%.2f", u.cpu)) | \(String(format: "%.2f", g.cpu)) |")
var latencies: [String: [Double]] = [:]
var falseFires: [String: Int] = [:]
for (name, r) in table {
    for fire in r.fires {
        let event = events[fire.rule]
        // A fire belongs to its event when it comes while the object is there (or within one question after).
        if fire.t >= event.start && fire.t <= event.end + 2 * cost + 1 {
            latencies[name, default: []].append(fire.t - event.start)
        } else {
            falseFires[name, default: 0] += 1
        }
    }
}
print("| fires | \(u.fires.count) | \(g.fires.count) |")
print("| events fired | \(latencies["ungated"]?.count ?? 0) of \(events.count) | \(latencies["gated"]?.count ?? 0) of \(events.count) |")
print("| false fires | \(falseFires["ungated"] ?? 0) | \(falseFires["gated"] ?? 0) |")
print("| event to fire, median s | \(fmt(median(latencies["ungated"] ?? []))) | \(fmt(median(latencies["gated"] ?? []))) |")
print("| event to fire, worst s | \(fmt(latencies["ungated"]?.max())) | \(fmt(latencies["gated"]?.max())) |")
print("\nmodel calls, ungated ÷ gated: \(String(format: "%.1f", Double(u.calls) / Double(max(g.calls, 1))))×")
for (name, r) in table {
    print("\(name) fires: " + r.fires.map { "\(colourNames[$0.rule]) at \(String(format: "%.1f", $0.t)) s" }.joined(separator: ", "))
}

// The gate alone on real decoding: each offered frame is decoded (720p H.264), scaled to 448 for the
// model, and compared; the comparison is the gate's own cost.
let source = try VideoFileSource(path: clip, pace: .frames(every: 0.5), maxSide: 448, clock: MonotonicClock())
var gate = ChangeGate(
    settings: {
        var s = ChangeGate.Settings(); s.enabled = true; s.masks = [GateMask(left: 0.8, top: 0, right: 1, bottom: 0.15)]; return s
    }())
var grab: [Double] = []
var compare: [Double] = []
let monotonic = MonotonicClock()
for k in 0..<300 {
    let t0 = monotonic.now()
    guard let frame = try source.next() else { break }
    let t1 = monotonic.now()
    _ = gate.judge(frame.image, at: Double(k) * 0.5)
    compare.append((monotonic.now() - t1) * 1000)
    grab.append((t1 - t0) * 1000)
}
print(
    "\nThe gate alone, per offered 1280 × 720 frame (median of \(grab.count)): decode and scale to 448 \(fmt(median(grab))) ms, compare \(String(format: "%.2f", median(compare) ?? 0)) ms"
)
