import Foundation
import LocalCloud
import Testing

/// Images made for one test in its own temp directory, with the real CLIs
/// (ImageMagick `convert`, `vips`, `vipsheader`), removed when the value goes away.
final class ImageFixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foodpin-images-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Whether libvips' module `name` (e.g. `vips-magick.so`) is installed beside libvips.
    static func hasVipsModule(_ name: String) -> Bool {
        let version = (try? runNow("vips", ["--version"])) ?? ""
        guard let match = version.firstMatch(of: /vips-(\d+)\.(\d+)/) else { return false }
        let directory = "vips-modules-\(match.1).\(match.2)"
        return ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"]
            .contains { FileManager.default.fileExists(atPath: "\($0)/\(directory)/\(name)") }
    }

    /// Runs a tool found on PATH and returns its standard output; throws on a non-zero exit.
    ///
    /// The wait runs on a thread of its own: a test blocked on a child process must not hold one
    /// of the cooperative pool's threads (two here) while every other test's server needs them.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) async throws -> String {
        try await BlockingThread.run(tool) { try runNow(tool, arguments) }
    }

    /// ``run(_:_:)`` for synchronous code outside tests' bodies (a trait's condition).
    private static func runNow(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = try BlockingThread.runCapturingNow(process)
        guard output.exit.succeeded else {
            throw FixtureError(
                "\(tool) \(arguments.joined(separator: " ")) exited \(output.exit.status): "
                    + String(decoding: output.stderr, as: UTF8.self))
        }
        return String(decoding: output.stdout, as: UTF8.self)
    }

    /// `convert ARGS... name` into the fixture directory.
    func convert(_ arguments: [String], to name: String) async throws -> URL {
        let out = url(name)
        try await Self.run("convert", arguments + [out.path])
        return out
    }

    func write(_ data: Data, to name: String) throws -> URL {
        let out = url(name)
        try data.write(to: out)
        return out
    }

    /// A copy of a JPEG with an EXIF block holding `orientation` and a GPS latitude,
    /// as a phone would write it.
    func jpegWithExif(_ jpeg: URL, orientation: UInt16, name: String) throws -> URL {
        let original = try Data(contentsOf: jpeg)
        #expect(original.starts(with: [0xFF, 0xD8]))
        var tiff = Data("MM".utf8) + be16(0x2A) + be32(8)
        tiff += be16(2)  // IFD0: Orientation, GPSInfo pointer
        tiff += be16(0x0112) + be16(3) + be32(1) + be16(orientation) + be16(0)
        tiff += be16(0x8825) + be16(4) + be32(1) + be32(38)
        tiff += be32(0)
        tiff += be16(1)  // GPS IFD: GPSLatitudeRef = "N"
        tiff += be16(1) + be16(2) + be32(2) + Data([0x4E, 0, 0, 0])
        tiff += be32(0)
        let body = Data("Exif".utf8) + Data([0, 0]) + tiff
        let segment = Data([0xFF, 0xE1]) + be16(UInt16(body.count + 2)) + body
        let out = url(name)
        try (original.prefix(2) + segment + original.dropFirst(2)).write(to: out)
        return out
    }

    /// Sample values at x,y as `vips getpoint` reports them.
    static func pixel(_ url: URL, _ x: Int, _ y: Int) async throws -> [Double] {
        try await run("vips", ["getpoint", url.path, "\(x)", "\(y)"])
            .split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
    }

    /// Every header field, as `vipsheader -a` prints it.
    static func header(_ url: URL) async throws -> String {
        try await run("vipsheader", ["-a", url.path])
    }

    private func be16(_ value: UInt16) -> Data { Data([UInt8(value >> 8), UInt8(value & 0xFF)]) }
    private func be32(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Data {
    /// Whether the bytes are a JPEG (SOI marker followed by another marker).
    var isJPEG: Bool { starts(with: [0xFF, 0xD8, 0xFF]) }

    /// Whether an EXIF APP1 segment or an ICC/XMP block survived.
    var carriesMetadata: Bool {
        range(of: Data("Exif".utf8)) != nil || range(of: Data("http://ns.adobe.com/xap".utf8)) != nil
            || range(of: Data("ICC_PROFILE".utf8)) != nil
    }
}
