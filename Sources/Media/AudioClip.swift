/// A sound in memory: 16-bit signed samples, interleaved, at `rate` per second.
public struct AudioClip: Sendable {
    public var samples: [Int16]
    public var rate: Int
    public var channels: Int

    public init(samples: [Int16], rate: Int, channels: Int = 1) {
        self.samples = samples
        self.rate = rate
        self.channels = channels
    }

    /// Seconds of sound.
    public var duration: Double { Double(samples.count / max(channels, 1)) / Double(rate) }
}
