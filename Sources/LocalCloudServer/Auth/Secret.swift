import Foundation
import LocalCloud

/// New secrets and their digests: tokens come from the system CSPRNG and are stored only as SHA-256.
///
/// ```swift
/// let token = Secret.apiToken()          // 64 lowercase hex digits
/// let stored = Secret.digest(token)      // what the store keeps
/// ```
package enum Secret {
    /// An API token: 32 random bytes as 64 lowercase hex digits, like CloudKit's.
    package static func apiToken() -> String {
        Hex.encode(randomBytes(32))
    }

    /// A web auth token: 96 random bytes as unpadded URL-safe base64 (128 characters).
    package static func webAuthToken() -> String {
        Base64URL.encode(randomBytes(96))
    }

    /// SHA-256 of the token's UTF-8 bytes, lowercase hex: the only form a token is stored in.
    package static func digest(_ token: String) -> String {
        SHA256Hasher.hexDigest(of: token)
    }

    /// Whether two digests are equal, in time that depends only on their lengths.
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Whether `text` looks like an API token (64 lowercase or uppercase hex digits).
    package static func isHex64(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        // SystemRandomNumberGenerator reads the kernel CSPRNG (getrandom on Linux).
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
