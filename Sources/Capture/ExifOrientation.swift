import LookCore

/// Reads the EXIF orientation (tag 0x0112) from a JPEG (APP1), PNG (eXIf) or WebP (EXIF chunk).
/// Total: any bytes in, an orientation or nil out; it never reads past the buffer.
public enum ExifOrientation {
    public static func read(_ bytes: [UInt8]) -> Orientation? {
        guard let tiff = tiffBlock(bytes) else { return nil }
        return orientation(inTIFF: Array(bytes[tiff]))
    }

    /// The byte range of the TIFF structure inside the file's EXIF block.
    static func tiffBlock(_ b: [UInt8]) -> Range<Int>? {
        if b.count > 4, b[0] == 0xFF, b[1] == 0xD8 { return jpegTIFF(b) }
        if b.count > 8, b[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return pngTIFF(b) }
        if b.count > 12, b[0..<4].elementsEqual(Array("RIFF".utf8)), b[8..<12].elementsEqual(Array("WEBP".utf8)) {
            return webpTIFF(b)
        }
        return nil
    }

    private static func jpegTIFF(_ b: [UInt8]) -> Range<Int>? {
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA || marker == 0xD9 { return nil } // image data starts: no EXIF before it
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            let body = (i + 4)..<(i + 2 + length)
            if marker == 0xE1, body.count > 6, b[body.lowerBound..<body.lowerBound + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                return (body.lowerBound + 6)..<body.upperBound
            }
            i += 2 + length
        }
        return nil
    }

    private static func pngTIFF(_ b: [UInt8]) -> Range<Int>? {
        var i = 8
        while i + 8 <= b.count {
            let length = Int(be32(b, i))
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            guard length >= 0, i + 8 + length <= b.count else { return nil }
            if type == "eXIf" { return (i + 8)..<(i + 8 + length) }
            if type == "IDAT" || type == "IEND" { return nil }
            i += 12 + length
        }
        return nil
    }

    private static func webpTIFF(_ b: [UInt8]) -> Range<Int>? {
        var i = 12
        while i + 8 <= b.count {
            let type = String(decoding: b[i..<(i + 4)], as: UTF8.self)
            let length = Int(le32(b, i + 4))
            guard i + 8 + length <= b.count else { return nil }
            if type == "EXIF" {
                var start = i + 8
                // Some writers keep the JPEG-style "Exif\0\0" prefix.
                if length > 6, b[start..<start + 4].elementsEqual(Array("Exif".utf8)) { start += 6 }
                return start..<(i + 8 + length)
            }
            i += 8 + length + (length & 1)
        }
        return nil
    }

    /// Finds tag 0x0112 in IFD0 of a TIFF structure.
    static func orientation(inTIFF t: [UInt8]) -> Orientation? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? { o + 2 <= t.count ? Int(little ? le16(t, o) : be16(t, o)) : nil }
        func u32(_ o: Int) -> Int? { o + 4 <= t.count ? Int(little ? le32(t, o) : be32(t, o)) : nil }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<count {
            let entry = ifd + 2 + k * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let type = u16(entry + 2), type == 3, let value = u16(entry + 8) {
                return Orientation(rawValue: value)
            }
        }
        return nil
    }

    private static func be16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o]) << 8 | UInt16(b[o + 1]) }
    private static func le16(_ b: [UInt8], _ o: Int) -> UInt16 { UInt16(b[o + 1]) << 8 | UInt16(b[o]) }
    private static func be32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
    }
    private static func le32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o + 3]) << 24 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 1]) << 8 | UInt32(b[o])
    }
}
