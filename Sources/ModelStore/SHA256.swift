internal import CCrypto
import Foundation

/// SHA-256 (OpenSSL's libcrypto): of a file, streamed, as the Hub gives it for large files; or of a
/// few bytes.
public enum SHA256 {
    public static func hex(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return digest { ctx in
            while true {
                let chunk = handle.readData(ofLength: 1 << 20)
                if chunk.isEmpty { break }
                _ = chunk.withUnsafeBytes { EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
            }
        }
    }

    public static func hex(of bytes: [UInt8]) -> String {
        digest { ctx in _ = bytes.withUnsafeBytes { EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) } } ?? ""
    }

    private static func digest(_ feed: (OpaquePointer) -> Void) -> String? {
        guard let ctx = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else { return nil }
        feed(ctx)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(ctx, &digest, &length) == 1 else { return nil }
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
