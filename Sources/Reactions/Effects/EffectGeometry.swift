import Foundation
import LookCore

/// A rectangle in a picture's pixels.
public struct PixelRect: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }

    /// The rectangle of a per-mille box in a `width` × `height` picture.
    public init(_ box: Box, width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        self.init(
            x: Double(box.left) / 1000 * w, y: Double(box.top) / 1000 * h,
            width: Double(box.right - box.left) / 1000 * w, height: Double(box.bottom - box.top) / 1000 * h)
    }
}

/// Where each held-frame edit plays, from the model's box (the seed's geometry). Pure: no pixels.
public enum EffectGeometry {
    /// Ripple: the wave starts at the box's middle, 0.3 of the box's shorter side wide, at least 8 % of
    /// the picture's shorter side. No box: from the picture's middle, as if the box were the picture.
    public static func ripple(box: Box?, width: Int, height: Int) -> (centerX: Double, centerY: Double, waveWidth: Double) {
        let rect = box.map { PixelRect($0, width: width, height: height) } ?? PixelRect(x: 0, y: 0, width: Double(width), height: Double(height))
        let shortest = Double(min(width, height))
        return (rect.midX, rect.midY, max(0.3 * min(rect.width, rect.height), 0.08 * shortest))
    }

    /// Zoom: the box widened by a quarter of its width and height on each side, given the picture's
    /// shape, scaled to fill the picture but kept within 1.2–2.5×, and moved in where it would leave
    /// the frame. No box: 2× toward the middle.
    public static func zoom(box: Box?, width: Int, height: Int) -> (window: PixelRect, scale: Double) {
        let W = Double(width), H = Double(height)
        guard let box else {
            return (PixelRect(x: W / 4, y: H / 4, width: W / 2, height: H / 2), 2)
        }
        let b = PixelRect(box, width: width, height: height)
        var w = b.width * 1.5, h = b.height * 1.5
        let aspect = W / H
        if w / h < aspect { w = h * aspect } else { h = w / aspect }
        let scale = min(2.5, max(1.2, W / w))
        w = W / scale
        h = H / scale
        let x = min(max(b.midX - w / 2, 0), W - w)
        let y = min(max(b.midY - h / 2, 0), H - h)
        return (PixelRect(x: x, y: y, width: w, height: h), scale)
    }

    /// How far into the zoom the picture is, `seconds` into the hold: 0.6 s, eased out (cubic).
    public static func zoomProgress(seconds: Double) -> Double {
        let t = min(max(seconds / 0.6, 0), 1)
        return 1 - pow(1 - t, 3)
    }

    /// Spotlight: the box widened by a tenth of its width and height on each side (within the picture)
    /// stays lit behind a soft edge blurred 6 % of the picture's shorter side; outside it is −1.6 EV
    /// and saturation 0.1. No box: the middle two thirds lit.
    public static func spotlight(box: Box?, width: Int, height: Int) -> (lit: PixelRect, blur: Double) {
        let W = Double(width), H = Double(height)
        let blur = 0.06 * min(W, H)
        guard let box else { return (PixelRect(x: W / 6, y: H / 6, width: W * 2 / 3, height: H * 2 / 3), blur) }
        let b = PixelRect(box, width: width, height: height)
        let x0 = max(0, b.x - b.width / 10), y0 = max(0, b.y - b.height / 10)
        let x1 = min(W, b.x + b.width * 1.1), y1 = min(H, b.y + b.height * 1.1)
        return (PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), blur)
    }

    /// The exposure factor outside the spotlight (−1.6 EV) and the saturation kept there.
    public static let spotlightExposure = pow(2.0, -1.6)
    public static let spotlightSaturation = 0.1
}
