import Crypto
import Foundation

/// A server-to-server signature, as the reference's "Accessing CloudKit Using a Server-to-Server Key"
/// defines it: ECDSA P-256 with SHA-256 over `[ISO8601 date]:[base64 SHA-256 of the body]:[URL subpath]`,
/// sent base64 (DER) in `X-Apple-CloudKit-Request-SignatureV1`.
///
/// ```swift
/// let message = RequestSignature.message(date: "2016-01-25T22:15:43Z", body: body,
///                                        subpath: "/database/1/iCloud.com.example/development/public/records/query")
/// let signature = try privateKey.signature(for: Array(message.utf8)).derRepresentation.base64EncodedString()
/// ```
package enum RequestSignature {
    /// How far the signed date may be from the server's clock, either way.
    package static let allowedSkew: TimeInterval = 10 * 60

    /// The signed text.
    package static func message(date: String, body: [UInt8], subpath: String) -> String {
        "\(date):\(Data(SHA256.hash(data: body)).base64EncodedString()):\(subpath)"
    }

    /// Whether `signature` (base64 of a DER or 64-byte raw ECDSA signature) signs the request with `key`.
    static func isValid(_ signature: String, key: P256.Signing.PublicKey, date: String, body: [UInt8], subpath: String) -> Bool {
        guard signature.utf8.count <= 512, let bytes = Data(base64Encoded: signature) else { return false }
        let parsed: P256.Signing.ECDSASignature?
        if let der = try? P256.Signing.ECDSASignature(derRepresentation: bytes) {
            parsed = der
        } else if bytes.count == 64 {
            parsed = try? P256.Signing.ECDSASignature(rawRepresentation: bytes)
        } else {
            parsed = nil
        }
        guard let parsed else { return false }
        return key.isValidSignature(parsed, for: Array(message(date: date, body: body, subpath: subpath).utf8))
    }

    /// The signed date (`2016-01-25T22:15:43Z`, fractional seconds allowed); `nil` when it is not ISO 8601.
    static func date(_ text: String) -> Date? {
        guard text.utf8.count <= 64 else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
