import CLibCrypto
import Foundation

/// SHA-256 from the system's OpenSSL libcrypto: asset file names, token digests and schema names.
///
/// ```swift
/// SHA256Hasher.hexDigest(of: Array("abc".utf8))   // "ba7816bf…f20015ad"
/// var hasher = SHA256Hasher()
/// hasher.update(chunk)                             // as a file streams past
/// let name = Hex.encode(hasher.finalize())
/// ```
///
/// libcrypto comes with the system (libssl-dev), so LocalCloud, and `foodpin` with it, builds no
/// cryptography library of its own. The hash itself is OpenSSL's, never written here.
package struct SHA256Hasher: ~Copyable {
    /// The digest's length in bytes.
    package static let byteCount = 32

    // An EVP_MD_CTX, owned by this value and freed in deinit; nil only if OpenSSL ran out of memory.
    private let context: OpaquePointer?

    package init() {
        context = EVP_MD_CTX_new()
        if let context, EVP_DigestInit_ex(context, EVP_sha256(), nil) != 1 {
            EVP_MD_CTX_free(context)
            preconditionFailure("OpenSSL's SHA-256 could not start")
        }
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds `bytes` to the hash.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else {
            preconditionFailure("OpenSSL's SHA-256 update failed")
        }
    }

    /// Adds `data` to the hash.
    package mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the hash.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything added.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        guard let context,
              digest.withUnsafeMutableBufferPointer({ EVP_DigestFinal_ex(context, $0.baseAddress, &length) }) == 1,
              length == Self.byteCount
        else {
            preconditionFailure("OpenSSL's SHA-256 could not finish")
        }
        return digest
    }

    /// The 32-byte SHA-256 digest of `bytes`.
    package static func digest(of bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The 32-byte SHA-256 digest of `data`.
    package static func digest(of data: Data) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// SHA-256 of `bytes` as 64 lowercase hex digits.
    package static func hexDigest(of bytes: [UInt8]) -> String {
        Hex.encode(digest(of: bytes))
    }

    /// SHA-256 of `data` as 64 lowercase hex digits.
    package static func hexDigest(of data: Data) -> String {
        Hex.encode(digest(of: data))
    }

    /// SHA-256 of the UTF-8 bytes of `text` as 64 lowercase hex digits.
    package static func hexDigest(of text: String) -> String {
        Hex.encode(digest(of: Array(text.utf8)))
    }
}
