import Foundation
import Testing
@testable import LocalCloud

@Suite struct SHA256HasherTests {
    @Test func matchesTheStandardVectors() {
        // FIPS 180-2's examples, and the empty message.
        #expect(SHA256Hasher.hexDigest(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Hasher.hexDigest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Hasher.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Hasher.digest(of: Array("abc".utf8)).count == SHA256Hasher.byteCount)
    }

    @Test func piecesGiveTheSameDigestAsTheWhole() {
        // Pieces that straddle the 64-byte block, as the asset store feeds 1 MiB chunks; an empty one too.
        var hasher = SHA256Hasher()
        for piece in ["abcdbcdecdefdefgefghfghighijhijkijklj", "", "klmklmnlmnomnopnopq"] { hasher.update(Data(piece.utf8)) }
        #expect(Hex.encode(hasher.finalize()) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func agreesWithSha256sumOnAFileOfSeveralChunks() throws {
        // 3 MiB + 17 bytes of varied content, hashed in 1 MiB chunks, against coreutils' sha256sum.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(3 << 20) + 17).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        var hasher = SHA256Hasher()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + (1 << 20), bytes.count)
            hasher.update(Array(bytes[offset..<end]))
            offset = end
        }
        let streamed = Hex.encode(hasher.finalize())

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(printed.split(separator: " ").first.map(String.init) == streamed)
        #expect(SHA256Hasher.hexDigest(of: bytes) == streamed)
    }
}
