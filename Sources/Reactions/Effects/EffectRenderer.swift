import Foundation
import LookCore
import ReactionDomain

/// Draws a held frame's edit at any moment of its hold: Ripple, Zoom or Spotlight at the model's box
/// (or the no-box forms), with the thin blue border the seed's screen puts round a held frame.
/// What is the same for every moment (the blue-tinted copy, the dark grey copy, the spotlight's mask)
/// is made once.
public final class EffectRenderer: @unchecked Sendable {
    public let effect: Effect
    public let box: Box?
    public let frame: RGBImage
    private let width: Int
    private let height: Int
    /// Ripple: the frame tinted blue, where the wave has passed. Spotlight: the frame dark and grey.
    private var target: [UInt8] = []
    /// Spotlight: how lit each pixel is (1 inside the widened box, 0 far outside, soft between).
    private var lit: [Float] = []

    /// Seconds the ripple's wave takes to cross the picture; it ends well before a 3 s hold does.
    public static let rippleSeconds = 2.0
    /// Seconds the spotlight takes to dim the outside.
    public static let spotlightSeconds = 0.4
    /// The border's colour (the system blue) and its width, a 200th of the shorter side, at least 1 px.
    public static let borderColour: (UInt8, UInt8, UInt8) = (10, 132, 255)

    public init(effect: Effect, box: Box?, frame: RGBImage) {
        self.effect = effect
        self.box = box
        self.frame = frame
        self.width = frame.width
        self.height = frame.height
        switch effect {
        case .ripple: target = Self.tinted(frame.pixels)
        case .spotlight:
            target = Self.darkGrey(frame.pixels)
            lit = Self.spotlightMask(box: box, width: width, height: height)
        case .zoom: break
        }
    }

    /// The picture `seconds` into the hold.
    public func picture(at seconds: Double) -> RGBImage {
        var out: [UInt8]
        switch effect {
        case .ripple: out = ripple(at: seconds)
        case .zoom: out = zoom(at: seconds)
        case .spotlight: out = spotlight(at: seconds)
        }
        drawBorder(&out)
        return RGBImage(width: width, height: height, pixels: out)!
    }

    // MARK: Ripple

    /// A ring wave spreading from the box's middle; inside it the blue-tinted copy, in it the picture
    /// bent outward (the refraction of CIRippleTransition), outside it the picture as it was.
    private func ripple(at seconds: Double) -> [UInt8] {
        let (cx, cy, ring) = EffectGeometry.ripple(box: box, width: width, height: height)
        let far = [(0.0, 0.0), (Double(width), 0.0), (0.0, Double(height)), (Double(width), Double(height))]
            .map { hypot($0.0 - cx, $0.1 - cy) }.max()!
        let progress = min(max(seconds / Self.rippleSeconds, 0), 1)
        let radius = progress * (far + ring)
        let bend = ring * 0.25
        var out = frame.pixels
        let w = width, h = height
        frame.pixels.withUnsafeBufferPointer { src in
            target.withUnsafeBufferPointer { tinted in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<h {
                        for x in 0..<w {
                            let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                            let d = (dx * dx + dy * dy).squareRoot()
                            let i = (y * w + x) * 3
                            if d <= radius - ring {
                                dst[i] = tinted[i]; dst[i + 1] = tinted[i + 1]; dst[i + 2] = tinted[i + 2]
                            } else if d < radius {
                                let u = (radius - d) / ring // 0 at the wave's front, 1 at its back
                                let push = bend * sin(u * .pi) / max(d, 1)
                                let sx = min(max(Int(Double(x) - dx * push), 0), w - 1)
                                let sy = min(max(Int(Double(y) - dy * push), 0), h - 1)
                                let j = (sy * w + sx) * 3
                                for c in 0..<3 {
                                    dst[i + c] = UInt8((Double(src[j + c]) * (1 - u) + Double(tinted[j + c]) * u).rounded())
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The frame with a blue cast: 60 % of the picture and 40 % of a deep sky blue.
    static func tinted(_ pixels: [UInt8]) -> [UInt8] {
        let blue: [Double] = [40, 110, 235]
        var out = pixels
        for i in 0..<pixels.count { out[i] = UInt8((Double(pixels[i]) * 0.6 + blue[i % 3] * 0.4).rounded()) }
        return out
    }

    // MARK: Zoom

    /// The picture over a window that closes in on the zoom window in 0.6 s, eased out.
    private func zoom(at seconds: Double) -> [UInt8] {
        let (window, _) = EffectGeometry.zoom(box: box, width: width, height: height)
        let q = EffectGeometry.zoomProgress(seconds: seconds)
        let W = Double(width), H = Double(height)
        let view = PixelRect(
            x: window.x * q, y: window.y * q,
            width: W + (window.width - W) * q, height: H + (window.height - H) * q)
        return Self.sample(frame, window: view)
    }

    /// `image`'s `window` stretched over the whole picture (bilinear).
    static func sample(_ image: RGBImage, window: PixelRect) -> [UInt8] {
        let w = image.width, h = image.height
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let sx = window.width / Double(w), sy = window.height / Double(h)
        image.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let fy = min(max(window.y + (Double(y) + 0.5) * sy - 0.5, 0), Double(h - 1))
                    let y0 = Int(fy), y1 = min(y0 + 1, h - 1), ty = fy - Double(y0)
                    for x in 0..<w {
                        let fx = min(max(window.x + (Double(x) + 0.5) * sx - 0.5, 0), Double(w - 1))
                        let x0 = Int(fx), x1 = min(x0 + 1, w - 1), tx = fx - Double(x0)
                        let a = (y0 * w + x0) * 3, b = (y0 * w + x1) * 3, c = (y1 * w + x0) * 3, d = (y1 * w + x1) * 3
                        let i = (y * w + x) * 3
                        for k in 0..<3 {
                            let top = Double(src[a + k]) * (1 - tx) + Double(src[b + k]) * tx
                            let bottom = Double(src[c + k]) * (1 - tx) + Double(src[d + k]) * tx
                            dst[i + k] = UInt8((top * (1 - ty) + bottom * ty).rounded())
                        }
                    }
                }
            }
        }
        return out
    }

    // MARK: Spotlight

    /// The dark grey copy showing through outside the lit window, faded in over 0.4 s.
    private func spotlight(at seconds: Double) -> [UInt8] {
        let t = min(max(seconds / Self.spotlightSeconds, 0), 1)
        let strength = Float(1 - (1 - t) * (1 - t))
        var out = frame.pixels
        let n = width * height
        frame.pixels.withUnsafeBufferPointer { src in
            target.withUnsafeBufferPointer { dark in
                lit.withUnsafeBufferPointer { mask in
                    out.withUnsafeMutableBufferPointer { dst in
                        for p in 0..<n {
                            let a = strength * (1 - mask[p])
                            for c in 0..<3 {
                                let i = p * 3 + c
                                dst[i] = UInt8((Float(src[i]) * (1 - a) + Float(dark[i]) * a).rounded())
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// −1.6 EV and saturation 0.1, worked in linear light as Core Image does.
    static func darkGrey(_ pixels: [UInt8]) -> [UInt8] {
        let linear = (0..<256).map { Colour.linear(Double($0) / 255) }
        var out = pixels
        for p in stride(from: 0, to: pixels.count, by: 3) {
            let r = linear[Int(pixels[p])], g = linear[Int(pixels[p + 1])], b = linear[Int(pixels[p + 2])]
            let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
            let s = EffectGeometry.spotlightSaturation, e = EffectGeometry.spotlightExposure
            out[p] = Colour.byte((luma + (r - luma) * s) * e)
            out[p + 1] = Colour.byte((luma + (g - luma) * s) * e)
            out[p + 2] = Colour.byte((luma + (b - luma) * s) * e)
        }
        return out
    }

    /// The lit window blurred by a Gaussian of 6 % of the shorter side: for a rectangle this is the
    /// product of two error-function edges, exact and cheap.
    static func spotlightMask(box: Box?, width: Int, height: Int) -> [Float] {
        let (rect, blur) = EffectGeometry.spotlight(box: box, width: width, height: height)
        let k = 1 / (blur / 2 * 2.0.squareRoot()) // the blur as a Gaussian's radius ≈ 2σ
        func edge(_ v: Double, _ lo: Double, _ hi: Double) -> Double { 0.5 * (erf((hi - v) * k) - erf((lo - v) * k)) }
        let xs = (0..<width).map { edge(Double($0) + 0.5, rect.x, rect.x + rect.width) }
        let ys = (0..<height).map { edge(Double($0) + 0.5, rect.y, rect.y + rect.height) }
        var mask = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width { mask[y * width + x] = Float(min(1, xs[x] * ys[y])) }
        }
        return mask
    }

    // MARK: Border

    private func drawBorder(_ pixels: inout [UInt8]) {
        let line = max(1, min(width, height) / 200)
        let (r, g, b) = Self.borderColour
        for y in 0..<height {
            for x in 0..<width where x < line || y < line || x >= width - line || y >= height - line {
                let i = (y * width + x) * 3
                pixels[i] = r; pixels[i + 1] = g; pixels[i + 2] = b
            }
        }
    }
}

/// sRGB ↔ linear light.
enum Colour {
    static func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encoded(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    static func byte(_ linearValue: Double) -> UInt8 { UInt8((min(max(encoded(linearValue), 0), 1) * 255).rounded()) }
}
