import Foundation
import LocalCloud
import Testing
@testable import FoodPinCore

@Suite struct ImageProbeTests {
    @Test func acceptsRealImagesAndRejectsTheRest() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A real PNG and JPEG from ImageMagick, when it is installed (CI installs it).
        for ext in ["png", "jpg"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/convert")
            process.arguments = ["-size", "8x8", "xc:red", dir.appendingPathComponent("red.\(ext)").path]
            try process.run()
            #expect(await BlockingThread.waitForExit(process).succeeded)
            #expect(ImageProbe.problem(with: dir.appendingPathComponent("red.\(ext)").path) == nil)
        }
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello, not an image".utf8).write(to: text)
        #expect(ImageProbe.problem(with: text.path) == "Not an image file")
        let empty = dir.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        #expect(ImageProbe.problem(with: empty.path) == "The file is empty")
        #expect(ImageProbe.problem(with: dir.path) == "That is a directory")
        #expect(ImageProbe.problem(with: dir.appendingPathComponent("missing.jpg").path) == "No such file")
    }

    @Test func liveServicesListDirectories() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("list-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: dir.appendingPathComponent("a.jpg"))
        defer { try? FileManager.default.removeItem(at: dir) }
        let entries = FormServices.live.listDirectory(dir.path)?.sorted { $0.name < $1.name }
        #expect(entries == [.init(name: "a.jpg", isDirectory: false), .init(name: "sub", isDirectory: true)])
        #expect(FormServices.live.listDirectory(dir.appendingPathComponent("nope").path) == nil)
    }
}
