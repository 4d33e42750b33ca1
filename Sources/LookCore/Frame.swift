/// One picture taken from a source, as the model gets it.
public struct Frame: Sendable {
    /// The picture, scaled for the model.
    public var image: RGBImage
    /// When it was taken from the source (the run's clock, seconds).
    public var captured: Double
    /// Seconds into the video, for a file or a stream; nil for a photo folder.
    public var sourceTime: Double?
    /// How old the picture was when taken: a live source's newest frame arrived a little earlier;
    /// a video in real time may have moved past it.
    public var age: Double
    /// What the picture is, when the source names it (a photo's file name).
    public var label: String?
    /// The source's picture size before scaling.
    public var sourceSize: (width: Int, height: Int)
    /// For a photo folder: when (the run's clock) this photo came on.
    public var shownAt: Double?
    /// What taking it cost: decoding (and seeking) up to it, and scaling it for the model, in seconds.
    public var decodeSeconds: Double?
    public var scaleSeconds: Double?
    /// A live source: how long the loop waited for a picture newer than the last (a lost camera's
    /// time away included).
    public var waitSeconds: Double?
    /// A live source: which opening of it the picture came from (1, then one more each time a lost
    /// camera or stream came back). A camera's kept tower results are of one opening.
    public var opening = 1

    public init(
        image: RGBImage, captured: Double, sourceTime: Double? = nil, age: Double = 0,
        label: String? = nil, sourceSize: (width: Int, height: Int)? = nil
    ) {
        self.image = image
        self.captured = captured
        self.sourceTime = sourceTime
        self.age = age
        self.label = label
        self.sourceSize = sourceSize ?? (image.width, image.height)
    }
}

/// The size with the same shape whose long side is at most `maxSide` (never enlarged).
public func fittedSize(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
    let long = max(width, height)
    guard long > maxSide, maxSide > 0 else { return (width, height) }
    let scale = Double(maxSide) / Double(long)
    return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
}
