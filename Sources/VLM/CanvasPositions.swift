/// MiniCPM-V 4.7's "canvas M-RoPE": every prompt position carries a (t, h, w) position besides its
/// index. Text is plain 1-D; a picture is laid out on a canvas: its thumbnail stretched over the whole
/// canvas, its slices tiled on it, the markers around them pinned to corners and edges, and the text
/// after it going on from one step past the canvas. A port of transformers'
/// `MiniCPMV4_7Model.get_rope_index` (transformers 5.24) for one unpadded sequence, checked against it
/// on the layouts in Tests/VLMTests/CanvasPositionsTests.swift. Pure: no model needed.
public enum CanvasPositions {
    /// The marker token ids (from the tokenizer: `<image>`, `</image>`, `<slice>`, `</slice>`, "\n").
    public struct Markers: Sendable, Equatable {
        public var imageStart, imageEnd, sliceStart, sliceEnd, newline: Int32
        public init(imageStart: Int32, imageEnd: Int32, sliceStart: Int32, sliceEnd: Int32, newline: Int32) {
            (self.imageStart, self.imageEnd, self.sliceStart, self.sliceEnd, self.newline) = (imageStart, imageEnd, sliceStart, sliceEnd, newline)
        }
        var all: Set<Int32> { [imageStart, imageEnd, sliceStart, sliceEnd, newline] }
    }

    /// One prompt position: a text token, or one token of a picture's crop.
    public enum Item: Sendable, Equatable {
        case text(Int32)
        /// A token of crop `crop` (crops numbered in prompt order), whose patch grid is `grid` (h, w).
        case image(crop: Int, grid: (h: Int, w: Int))

        public static func == (a: Item, b: Item) -> Bool {
            switch (a, b) {
            case (.text(let x), .text(let y)): return x == y
            case (.image(let c1, let g1), .image(let c2, let g2)): return c1 == c2 && g1 == g2
            default: return false
            }
        }
    }

    /// A position: `t`, `h`, `w` for RoPE (the text channel is the index itself).
    public struct Position: Sendable, Equatable {
        public var t: Int, h: Int, w: Int
    }

    /// The positions of `items`, and the delta the positions of later (generated) tokens get:
    /// token `i` after the prompt has t = h = w = i + delta. `mergeFactor`: 4 for the `16x`
    /// downsampling, 2 for `4x`.
    public static func layout(_ items: [Item], markers: Markers, mergeFactor: Int = 4) -> (positions: [Position], delta: Int) {
        let n = items.count
        var pos = (0..<n).map { Position(t: $0, h: $0, w: $0) }
        func fill(_ range: Range<Int>, from start: Int) {
            for (k, i) in range.enumerated() { pos[i] = Position(t: start + k, h: start + k, w: start + k) }
        }
        let groups = self.groups(items, markers: markers)
        var current = 0, cursor = 0
        for group in groups {
            if group.start > cursor {
                fill(cursor..<group.start, from: current)
                current += group.start - cursor
            }
            var frameCursor = group.start
            for frame in group.frames {
                let frameStart = frame.thumb.lowerBound - 1
                if frameStart > frameCursor {
                    fill(frameCursor..<frameStart, from: current)
                    current += frameStart - frameCursor + 1
                }
                let frameEnd = min(frame.end, group.end)
                current += placeFrame(frame, items, &pos, start: frameStart, end: frameEnd, origin: current, merge: mergeFactor) + 1
                frameCursor = frameEnd
            }
            if frameCursor < group.end {
                fill(frameCursor..<group.end, from: current)
                current += group.end - frameCursor
            }
            cursor = group.end
        }
        if cursor < n { fill(cursor..<n, from: current) }
        let top = pos.map { max($0.t, $0.h, $0.w) }.max() ?? -1
        return (pos, top + 1 - n)
    }

    /// Places one frame's tokens (its thumbnail, then its slices on one canvas, and the markers
    /// between them) from `origin`; how far the canvas reaches (later tokens start past it).
    private static func placeFrame(
        _ frame: Frame, _ items: [Item], _ pos: inout [Position], start frameStart: Int, end frameEnd: Int, origin: Int, merge: Int
    ) -> Int {
        let halo = max(origin - 1, 0)
        let thumbGrid = grid(items[frame.thumb.lowerBound])
        var canvasH = thumbGrid.h / merge, canvasW = thumbGrid.w / merge
        var rows = 0, cols = 0, sliceH = 0, sliceW = 0
        if !frame.slices.isEmpty {
            cols = frame.slices.count
            for k in 0..<(frame.slices.count - 1) where frame.slices[k + 1].lowerBound - frame.slices[k].upperBound > 2 {
                cols = k + 1
                break
            }
            rows = cols > 0 ? frame.slices.count / cols : 1
            if rows * cols != frame.slices.count { (rows, cols) = (1, frame.slices.count) }
            let first = grid(items[frame.slices[0].lowerBound])
            (sliceH, sliceW) = (first.h / merge, first.w / merge)
            (canvasH, canvasW) = (rows * sliceH, cols * sliceW)
        }
        for i in frameStart..<frameEnd { pos[i] = Position(t: origin, h: origin, w: origin) }
        pos[frameStart].h = halo
        pos[frameStart].w = halo
        if frame.thumb.upperBound < frameEnd {
            pos[frame.thumb.upperBound].h = origin + canvasH
            pos[frame.thumb.upperBound].w = origin + canvasW
        }
        place(&pos, frame.thumb, grid: thumbGrid, origin: origin, canvas: (canvasH, canvasW), offset: (0, 0), merge: merge)
        for (k, slice) in frame.slices.enumerated() {
            let offset = ((k / cols) * sliceH, (k % cols) * sliceW)
            let g = grid(items[slice.lowerBound])
            let (sh, sw) = (g.h / merge, g.w / merge)
            if slice.lowerBound - 1 >= frameStart {
                pos[slice.lowerBound - 1].h = origin + offset.0
                pos[slice.lowerBound - 1].w = origin + offset.1
            }
            if slice.upperBound < frameEnd {
                pos[slice.upperBound].h = origin + offset.0 + sh - 1
                pos[slice.upperBound].w = origin + offset.1 + sw - 1
            }
            place(&pos, slice, grid: g, origin: origin, canvas: (0, 0), offset: offset, merge: merge)
        }
        for k in 0..<max(0, frame.slices.count - 1) {
            let gapStart = frame.slices[k].upperBound, gapEnd = frame.slices[k + 1].lowerBound
            guard gapEnd - gapStart > 2 else { continue }
            for i in (gapStart + 1)..<(gapEnd - 1) {
                pos[i].h = origin + (k / cols + 1) * sliceH - 1
                pos[i].w = origin + cols * sliceW
            }
        }
        return max(canvasH, canvasW)
    }

    // MARK: - Parts

    private struct Frame { var thumb: Range<Int>; var slices: [Range<Int>]; var end: Int }
    private struct Group { var start: Int; var frames: [Frame]; var end: Int }

    private static func grid(_ item: Item) -> (h: Int, w: Int) {
        if case .image(_, let g) = item { return g }
        return (0, 0)
    }

    /// A crop's tokens on the canvas: rows and columns resampled over the canvas (or the crop's own
    /// grid), as `torch.linspace(0, size - 1, n).round()`, plus the crop's offset.
    private static func place(
        _ pos: inout [Position], _ crop: Range<Int>, grid: (h: Int, w: Int), origin: Int,
        canvas: (Int, Int), offset: (Int, Int), merge: Int
    ) {
        let gh = grid.h / merge, gw = grid.w / merge
        let hs = linspaceRounded(to: (canvas.0 > 0 ? canvas.0 : gh) - 1, count: gh)
        let ws = linspaceRounded(to: (canvas.1 > 0 ? canvas.1 : gw) - 1, count: gw)
        var i = crop.lowerBound
        for r in 0..<gh {
            for c in 0..<gw where i < crop.upperBound {
                pos[i] = Position(t: origin, h: origin + hs[r] + offset.0, w: origin + ws[c] + offset.1)
                i += 1
            }
        }
    }

    /// `torch.linspace(0, end, count)` in float32 (its two-sided formula), rounded half to even.
    static func linspaceRounded(to end: Int, count: Int) -> [Int] {
        guard count > 1 else { return count == 1 ? [0] : [] }
        let step = Float(end) / Float(count - 1)
        let half = count / 2
        return (0..<count).map { i -> Int in
            let v = i < half ? step * Float(i) : Float(end) - step * Float(count - 1 - i)
            return Int(v.rounded(.toNearestOrEven))
        }
    }

    /// The pictures' spans: groups of frames that only markers separate; a frame is a thumbnail and
    /// the slices after it (a crop right after `<slice>`).
    private static func groups(_ items: [Item], markers: Markers) -> [Group] {
        let marks = markers.all
        func id(_ i: Int) -> Int32? { if case .text(let t) = items[i] { return t }; return nil }
        var crops: [Range<Int>] = []
        var i = 0
        while i < items.count {
            guard case .image(let crop, _) = items[i] else { i += 1; continue }
            var j = i
            while j < items.count, case .image(let c, _) = items[j], c == crop { j += 1 }
            crops.append(i..<j)
            i = j
        }
        var groups: [(start: Int, frames: [(thumb: Range<Int>, slices: [Range<Int>])])] = []
        var previousEnd = 0
        for crop in crops {
            if !groups.isEmpty, !groups[groups.count - 1].frames.isEmpty, crop.lowerBound > 0, id(crop.lowerBound - 1) == markers.sliceStart {
                groups[groups.count - 1].frames[groups[groups.count - 1].frames.count - 1].slices.append(crop)
            } else {
                let gap = previousEnd < crop.lowerBound - 1 ? Array(previousEnd..<(crop.lowerBound - 1)) : []
                let adjacent = !groups.isEmpty && gap.allSatisfy { id($0).map(marks.contains) ?? false }
                if adjacent {
                    groups[groups.count - 1].frames.append((crop, []))
                } else {
                    groups.append((crop.lowerBound - 1, [(crop, [])]))
                }
            }
            previousEnd = crop.upperBound
        }
        return groups.map { g in
            let frames = g.frames.map { f -> Frame in
                var end = f.slices.last?.upperBound ?? f.thumb.upperBound
                while end < items.count, let t = id(end), marks.contains(t) { end += 1 }
                return Frame(thumb: f.thumb, slices: f.slices, end: end)
            }
            return Group(start: g.start, frames: frames, end: frames.last!.end)
        }
    }
}
