import Foundation
import Testing
@testable import FoodPinCore

/// Real photos (the repo's sample JPEGs) encoded by libchafa for each graphics protocol.
@Suite(.serialized) struct ChafaEncoderTests {
    static var photo: URL { CloudFixture.assets.appendingPathComponent("Restaurants/cafe-deja-vu.jpg") }
    let cell = CellPixelSize(width: 10, height: 20)

    func thumbnail(_ mode: ImageMode, box: CellBox = CellBox(columns: 6, rows: 3)) throws -> Thumbnail {
        let renderer = ThumbnailRenderer(colorMode: .colors256, encoder: ChafaEncoder(mode: mode, cellPixels: cell))
        return try renderer.render(fileAt: Self.photo, in: box)
    }

    func text(_ pixels: PixelImage?) -> String { String(decoding: pixels?.bytes.prefix(120) ?? [], as: UTF8.self) }

    @Test func kittyIsScaledToTheCellsPixels() throws {
        let thumbnail = try thumbnail(.kitty)
        let pixels = try #require(thumbnail.pixels)
        // A 640×480 photo in a 6×3 box: 6×2 cells (as the symbols), 60×40 pixels at 10×20 px cells.
        #expect((pixels.columns, pixels.rows) == (6, 2))
        #expect(thumbnail.imageColumns == 0..<6 && thumbnail.imageRows == 0..<2)
        #expect(text(pixels).hasPrefix("\u{1B}_Ga=T,f=32,s=60,v=40,c=6,r=2,m=1"))
        #expect(pixels.bytes.suffix(2) == Array("\u{1B}\\".utf8))
        #expect(thumbnail.cost > pixels.bytes.count, "the cache's cost counts the encoded bytes")
    }

    @Test func sixelAndITerm() throws {
        let sixel = try #require(try thumbnail(.sixel).pixels)
        #expect(text(sixel).hasPrefix("\u{1B}P0;1;0q\"1;1;60;36"), "sixel rows come in 6-pixel bands")
        #expect(sixel.bytes.suffix(2) == Array("\u{1B}\\".utf8))
        let iterm = try #require(try thumbnail(.iterm).pixels)
        #expect(text(iterm).hasPrefix("\u{1B}]1337;File=inline=1;width=6;height=2;"))
    }

    @Test func theDetailViewGetsALargePhoto() throws {
        let size = Layout.detailImageSize(width: 100, height: 30)
        let pixels = try #require(try thumbnail(.kitty, box: CellBox(columns: size.columns, rows: size.rows)).pixels)
        #expect((pixels.columns, pixels.rows) == (32, 12))
        #expect(text(pixels).hasPrefix("\u{1B}_Ga=T,f=32,s=320,v=240,c=32,r=12"))
    }

    @Test func symbolsCarryNoPixels() throws {
        let thumbnail = try ThumbnailRenderer(colorMode: .colors256).render(fileAt: Self.photo, in: CellBox(columns: 6, rows: 3))
        #expect(thumbnail.pixels == nil)
    }
}
