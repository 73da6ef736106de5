import Foundation
import Testing

@testable import FoodPinCore

/// Header-only probing, which the add form runs on every path the user types.
// Serialized: these are CPU-heavy and synchronous; run in parallel they starve the 2-thread cooperative pool.
@Suite(.serialized) struct ImageInfoTests {
    let fixtures: ImageFixtures

    init() throws { fixtures = try ImageFixtures() }

    @Test func loaderNamesBecomeFormatNames() {
        #expect(ImageInfo.formatName(loader: "VipsForeignLoadJpegSource") == "jpeg")
        #expect(ImageInfo.formatName(loader: "VipsForeignLoadPngFile") == "png")
        #expect(ImageInfo.formatName(loader: "VipsForeignLoadNsgifBuffer") == "gif")
        #expect(ImageInfo.formatName(loader: "VipsForeignLoadHeifSource") == "heif")
    }

    @Test func probeReadsTheHeaderFromFileAndMemory() async throws {
        let png = try await fixtures.convert(["-size", "321x123", "xc:rgba(0,0,255,0.5)"], to: "half.png")
        let info = try ImageInfo.probe(png)
        #expect(info.width == 321 && info.height == 123)
        #expect(info.format == "png" && info.hasAlpha && info.bands == 4)
        #expect(info.orientation == 1 && info.pages == 1)
        #expect(info.byteCount == (try Data(contentsOf: png)).count)

        let fromData = try ImageInfo.probe(data: Data(contentsOf: png))
        #expect(fromData.width == 321 && fromData.height == 123 && fromData.format == "png")
        #expect(fromData.byteCount == 0)
    }

    @Test func probeRejectsWithoutDecoding() throws {
        let text = try fixtures.write(Data("hello".utf8), to: "hello.txt")
        let error = #expect(throws: ImageError.self) { try ImageInfo.probe(text) }
        #expect(error?.code == .notAnImage)
        #expect(error?.path == text.path)
        #expect(error?.description.contains("notAnImage") == true)

        let dataError = #expect(throws: ImageError.self) { try ImageInfo.probe(data: Data("hello".utf8)) }
        #expect(dataError?.code == .notAnImage)
    }
}
