import Capture
import Foundation
import LookCore
import VLM

// The tower's reuse against a whole encode, frame by frame (tools/bench-reuse --embeddings): each
// picture of FOLDER (PNGs in name order, a clip's frames) encoded with a camera's cache and whole;
// the embeddings' cosine and largest difference, and the constrained answers' P(yes) for the
// prompt's rules, each frame and overall.
// Usage: bench-tower MODEL MMPROJ FOLDER RULES (RULES: "a red ball|a blue square|…")

let args = CommandLine.arguments
guard args.count == 5 else {
    FileHandle.standardError.write(Data("usage: bench-tower MODEL MMPROJ FOLDER \"thing|thing|…\"\n".utf8))
    exit(2)
}
let things = args[4].split(separator: "|").map(String.init)
let prompt =
    "Answer each question with Yes or No, each answer on its own numbered line.\n"
    + things.enumerated().map { "\($0.offset + 1). Is there \($0.element)?" }.joined(separator: "\n")
let engine = try LlamaEngine(modelPath: args[1], mmprojPath: args[2], clock: MonotonicClock())
let cache = engine.makeTowerCache(TowerReuse())
let pictures = try FileManager.default.contentsOfDirectory(atPath: args[3]).filter { $0.hasSuffix(".png") }.sorted()

func cosine(_ a: [Float], _ b: [Float]) -> Double {
    var (dot, na, nb) = (0.0, 0.0, 0.0)
    for (x, y) in zip(a, b) { (dot, na, nb) = (dot + Double(x) * Double(y), na + Double(x * x), nb + Double(y * y)) }
    return dot / max(1e-30, (na * nb).squareRoot())
}

var (worstCosine, worstDifference, worstYes) = (1.0, Float(0), 0.0)
print("frame  computed  cosine    largest diff  (of largest)  P(yes) largest diff  whole vs the frame before: cosine")
var before: [Float]?
for (i, name) in pictures.enumerated() {
    let image = try PhotoDecoder.decode(path: (args[3] as NSString).appendingPathComponent(name))
    let reused = try engine.encode(image, cache: cache)
    let whole = try engine.encode(image)
    let (a, b) = (reused.imageEmbeddings, whole.imageEmbeddings)
    let c = cosine(a, b)
    let d = zip(a, b).map { abs($0 - $1) }.max() ?? 0
    let yesA = try engine.yesNo(image: reused, prompt: prompt, count: things.count, cancellation: nil)?.confidence ?? []
    let yesB = try engine.yesNo(image: whole, prompt: prompt, count: things.count, cancellation: nil)?.confidence ?? []
    let y = zip(yesA, yesB).map { abs($0 - $1) }.max() ?? 0
    (worstCosine, worstDifference, worstYes) = (min(worstCosine, c), max(worstDifference, d), max(worstYes, y))
    let figures = reused.reuse.map { "\($0.computed)/\($0.tokens)" } ?? "-"
    let moved = before.map { cosine($0, b) } ?? 1
    before = b
    print(
        String(format: "%5d  %8@  %.6f  %12.4f  %12.4f  %.4f  %.6f", i + 1, figures as NSString, c, d, b.map(abs).max() ?? 0, y, moved))
}
print(String(format: "worst: cosine %.6f, largest difference %.4f, P(yes) %.4f", worstCosine, worstDifference, worstYes))
