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

    @Test func agreesWithSha256sumOnAFileOfSeveralChunks() async throws {
        // 3 MiB + 17 bytes of varied content, hashed in 1 MiB chunks, against coreutils' sha256sum.
        // The bytes come from a seeded xorshift, 8 at a time: drawing 3 million bytes one by one from
        // the system generator made a getrandom call each and held a cooperative-pool thread for
        // seconds of a loaded full-suite run.
        var state = UInt64.random(in: 1 ... .max)
        var bytes = [UInt8]()
        bytes.reserveCapacity((3 << 20) + 24)
        while bytes.count < (3 << 20) + 17 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            withUnsafeBytes(of: state.littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - ((3 << 20) + 17))
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

        // The child's exit is awaited on a thread of its own, not on the cooperative pool.
        let (status, printed) = try await BlockingThread.run("sha256sum") { [path = file.path] in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["sha256sum", path]
            let output = try BlockingThread.runCapturingNow(process)
            return (output.exit.status, String(decoding: output.stdout, as: UTF8.self))
        }
        #expect(status == 0)
        #expect(printed.split(separator: " ").first.map(String.init) == streamed)
        #expect(SHA256Hasher.hexDigest(of: bytes) == streamed)
    }
}
