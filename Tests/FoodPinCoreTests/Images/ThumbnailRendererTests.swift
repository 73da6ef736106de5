import Foundation
import Testing

@testable import FoodPinCore

/// Thumbnails drawn with libchafa from images the tests make.
// Serialized: these are CPU-heavy and synchronous; run in parallel they starve the 2-thread cooperative pool.
@Suite(.serialized) struct ThumbnailRendererTests {
    let fixtures: ImageFixtures

    init() throws { fixtures = try ImageFixtures() }

    /// The xterm palette entry's RGB: 0–15 basic, 16–231 a 6×6×6 cube, 232–255 greys.
    static func rgb(_ index: UInt8) -> (Int, Int, Int) {
        let basic: [(Int, Int, Int)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
            (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
            (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        let i = Int(index)
        if i < 16 { return basic[i] }
        if i >= 232 { let grey = 8 + (i - 232) * 10; return (grey, grey, grey) }
        let levels = [0, 95, 135, 175, 215, 255]
        let cube = i - 16
        return (levels[cube / 36], levels[(cube / 6) % 6], levels[cube % 6])
    }

    /// The colours a viewer sees in a cell: the background through spaces, both otherwise.
    static func visibleColors(_ cell: Cell) -> [Color] {
        switch cell.character {
        case " ": [cell.style.background]
        case "█": [cell.style.foreground]
        default: [cell.style.foreground, cell.style.background]
        }
    }

    func imageCells(_ thumbnail: Thumbnail) -> [Cell] {
        thumbnail.imageRows.flatMap { row in thumbnail.imageColumns.map { thumbnail[$0, row] } }
    }

    @Test func redImageGivesRedCellsAt256Colours() async throws {
        let red = try await fixtures.convert(["-size", "640x480", "xc:rgb(230,20,20)"], to: "red.jpg")
        let thumbnail = try ThumbnailRenderer(colorMode: .colors256).render(fileAt: red, in: .listRow)
        #expect(thumbnail.width == 8 && thumbnail.height == 4 && thumbnail.cells.count == 32)
        let colors = imageCells(thumbnail).flatMap(Self.visibleColors)
        #expect(!colors.isEmpty)
        for color in colors {
            guard case .indexed(let index) = color else {
                Issue.record("expected a palette colour, got \(color)")
                continue
            }
            #expect(index >= 16, "INDEXED_240 leaves the 16 themeable colours alone")
            let (r, g, b) = Self.rgb(index)
            #expect(r >= 175 && g <= 95 && b <= 95, "index \(index) = \(r),\(g),\(b) is not red")
        }
    }

    /// 640×480 is 4:3; on cells twice as tall as wide, 8 columns need 3 rows.
    @Test func aspectRatioIsKeptAndTheBoxIsFilledWithBlanks() async throws {
        let image = try await fixtures.convert(["-size", "640x480", "xc:rgb(20,20,230)"], to: "blue.png")
        let thumbnail = try ThumbnailRenderer(colorMode: .colors256).render(fileAt: image, in: .listRow)
        #expect(thumbnail.imageColumns == 0..<8)
        #expect(thumbnail.imageRows == 0..<3)
        #expect(thumbnail.row(3).allSatisfy { $0 == .blank })
        #expect(thumbnail.text.count == 4 && thumbnail.text.allSatisfy { $0.count == 8 })

        let tall = try await fixtures.convert(["-size", "100x800", "xc:white"], to: "tall.png")
        let narrow = try ThumbnailRenderer(colorMode: .colors256).render(fileAt: tall, in: .listRow)
        #expect(narrow.width == 8 && narrow.height == 4)
        #expect(narrow.imageRows == 0..<4)
        #expect(narrow.imageColumns.count == 1)

        #expect(ThumbnailRenderer.fit(width: 1000, height: 100, in: .listRow) == (8, 1))
        #expect(ThumbnailRenderer.fit(width: 400, height: 400, in: CellBox(columns: 20, rows: 20)) == (20, 10))
    }

    @Test(arguments: [(ColorMode.colors16, 16), (.colors8, 8)])
    func fewerColoursStayInTheirPalette(mode: ColorMode, size: Int) async throws {
        let image = try await fixtures.convert(["-size", "320x240", "gradient:red-blue"], to: "gradient.png")
        let thumbnail = try ThumbnailRenderer(colorMode: mode).render(fileAt: image, in: CellBox(columns: 16, rows: 6))
        let colors = imageCells(thumbnail).flatMap { [$0.style.foreground, $0.style.background] }
        #expect(colors.contains { $0 != .default })
        for color in colors {
            if case .indexed(let index) = color { #expect(Int(index) < size) }
            if case .rgb = color { Issue.record("palette modes give palette colours") }
        }
    }

    /// Mono: no colours at all, the picture lives in the symbols.
    @Test func fgbgModeUsesDefaultColoursAndShapes() async throws {
        let image = try await fixtures.convert(
            ["-size", "320x240", "xc:black", "-fill", "white", "-draw", "rectangle 0,0 159,239"], to: "half.png")
        let thumbnail = try ThumbnailRenderer(colorMode: .none).render(fileAt: image, in: CellBox(columns: 16, rows: 6))
        #expect(thumbnail.cells.allSatisfy { $0.style == .plain })
        let left = Set(thumbnail.imageRows.map { thumbnail[1, $0].character })
        let right = Set(thumbnail.imageRows.map { thumbnail[14, $0].character })
        #expect(left.isDisjoint(with: right), "white and black halves must look different: \(left) \(right)")
    }

    @Test func encodedBytesRenderLikeTheFile() async throws {
        let image = try await fixtures.convert(["-size", "300x300", "gradient:yellow-green"], to: "square.jpg")
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let fromFile = try renderer.render(fileAt: image, in: .detail)
        let fromData = try renderer.render(data: Data(contentsOf: image), in: .detail)
        #expect(fromFile == fromData)
        #expect(fromFile.width == CellBox.detail.columns && fromFile.height == CellBox.detail.rows)
    }

    @Test func costGrowsWithTheBox() async throws {
        let image = try await fixtures.convert(["-size", "300x200", "xc:red"], to: "red.png")
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let small = try renderer.render(fileAt: image, in: .listRow)
        let large = try renderer.render(fileAt: image, in: .detail)
        #expect(small.cost >= 32 * MemoryLayout<Cell>.stride)
        #expect(large.cost > small.cost * 10)
    }

    @Test func brokenInputIsAnError() async throws {
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let garbage = Data("definitely not a picture".utf8)
        let notImage = #expect(throws: ImageError.self) { try renderer.render(data: garbage, in: .listRow) }
        #expect(notImage?.code == .notAnImage)

        let empty = #expect(throws: ImageError.self) { try renderer.render(data: Data(), in: .listRow) }
        #expect(empty?.code == .empty)

        let noise = try await fixtures.convert(["-size", "400x300", "xc:gray", "+noise", "Random"], to: "noise.jpg")
        let bytes = try Data(contentsOf: noise)
        let cut = #expect(throws: ImageError.self) { try renderer.render(data: bytes.prefix(bytes.count / 2), in: .listRow) }
        #expect(cut?.code == .corrupt)

        let missing = #expect(throws: ImageError.self) {
            try renderer.render(fileAt: fixtures.url("missing.jpg"), in: .listRow)
        }
        #expect(missing?.code == .unreadable)
    }

    @Test func placeholderIsTheBoxWithOneGlyph() {
        let placeholder = Thumbnail.placeholder(.listRow)
        #expect(placeholder.width == 8 && placeholder.height == 4)
        #expect(placeholder.cells.filter { $0.character != " " }.count == 1)
    }

    @Test func sampleAssetsAllRender() throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Assets/Restaurants")
        let records = try JSONDecoder().decode([[String: String]].self, from: Data(contentsOf: folder.appendingPathComponent("restaurants.json")))
        #expect(records.count >= 20)
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        for record in records {
            let file = folder.appendingPathComponent(try #require(record["image"]))
            let info = try ImageInfo.probe(file)
            #expect(info.width == 640 && info.height == 480 && info.format == "jpeg")
            let thumbnail = try renderer.render(fileAt: file, in: .listRow)
            #expect(Set(thumbnail.cells.map(\.style)).count > 3, "\(file.lastPathComponent) should be colourful")
            for key in ["name", "type", "location", "phone", "description"] {
                #expect(record[key]?.isEmpty == false, "\(key) missing in \(record)")
            }
        }
    }

    /// Canvases are pooled and reused: a drawing must not keep anything of the one before.
    @Test func reusedCanvasesDrawLikeFreshOnes() async throws {
        let red = try await fixtures.convert(["-size", "640x480", "gradient:red-yellow"], to: "warm.jpg")
        let blue = try await fixtures.convert(["-size", "640x480", "gradient:blue-cyan"], to: "cold.jpg")
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let first = try renderer.render(fileAt: red, in: .listRow)
        let other = try renderer.render(fileAt: blue, in: .listRow)
        let again = try renderer.render(fileAt: red, in: .listRow)
        #expect(first == again)
        #expect(first != other)
    }

    /// Two renders never share a canvas: many at once give what one at a time gives.
    @Test func concurrentRendersMatchSerialOnes() async throws {
        var files: [URL] = []
        for index in 0..<6 {
            files.append(try await fixtures.convert(["-size", "640x480", "gradient:rgb(\(index * 40),20,200)-rgb(250,\(index * 40),20)"],
                                                    to: "gradient\(index).jpg"))
        }
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let serial = try files.map { try renderer.render(fileAt: $0, in: .listRow) }
        let concurrent = try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            for _ in 0..<4 {
                for (index, file) in files.enumerated() {
                    group.addTask { (index, try renderer.render(fileAt: file, in: .listRow)) }
                }
            }
            var results: [(Int, Thumbnail)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(concurrent.count == 24)
        for (index, thumbnail) in concurrent {
            #expect(thumbnail == serial[index], "render \(index) differs when drawn concurrently")
        }
    }

    /// A 2048-px JPEG is decoded at 1/8 and drawn from those pixels, from a file and from bytes alike.
    @Test func largeJPEGRendersLikeItsBytes() async throws {
        let image = try await fixtures.convert(["-size", "2048x1536", "gradient:orange-purple"], to: "large.jpg")
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        for box in [CellBox.listRow, .detail] {
            let fromFile = try renderer.render(fileAt: image, in: box)
            let fromData = try renderer.render(data: Data(contentsOf: image), in: box)
            #expect(fromFile == fromData)
            #expect(fromFile.imageColumns == 0..<box.columns, "4:3 fills the width of \(box)")
        }
    }

    /// EXIF orientation 6 turns a 640×480 landscape upright into a 480×640 portrait.
    @Test func exifOrientationTurnsTheThumbnail() async throws {
        let landscape = try await fixtures.convert(["-size", "640x480", "xc:rgb(20,200,20)"], to: "landscape.jpg")
        let portrait = try fixtures.jpegWithExif(landscape, orientation: 6, name: "portrait.jpg")
        let renderer = ThumbnailRenderer(colorMode: .colors256)
        let upright = try renderer.render(fileAt: landscape, in: .detail)
        let turned = try renderer.render(fileAt: portrait, in: .detail)
        #expect(upright.imageColumns.count > turned.imageColumns.count)
        #expect(turned.imageRows.count == CellBox.detail.rows)
    }
}
