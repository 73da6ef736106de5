import FoodPinCore
import Foundation

/// `foodpin-bench images [--rounds N]`: the cost of a screen of thumbnails in each image mode.
///
/// A 100×30 terminal shows 9 list rows, each with a 6×3-cell thumbnail, and the detail view one
/// 32×16-cell photo. For the 9 sample photos of a screen, in each mode: the render time (libvips
/// decode + libchafa symbols, plus libchafa's kitty/sixel/iTerm2 encoder in the pixel modes) and
/// the bytes written to the terminal. Symbol bytes are the cells as SGR-coloured text (two
/// 256-colour SGRs and one glyph per cell, as a full repaint writes them); pixel bytes are the
/// placement sequences `ImagePainter` writes (save cursor, move, image, restore cursor).
/// Cells are 10×20 pixels.
struct ImagesBenchmark {
    var rounds = 20

    init(arguments: [String]) throws {
        if arguments.count == 2, arguments[0] == "--rounds", let value = Int(arguments[1]), value > 0 {
            rounds = value
        } else if !arguments.isEmpty {
            throw Bench.Failure(description: "usage: foodpin-bench images [--rounds N]")
        }
    }

    func run() throws {
        guard let assets = SampleAssets.locate() else { throw Bench.Failure(description: "Assets/ not found; set FOODPIN_ASSETS") }
        let photos = try SampleAssets.restaurants(in: assets).prefix(9).map { assets.appendingPathComponent("Restaurants/\($0.image)") }
        let cell = CellPixelSize(width: 10, height: 20)
        let row = CellBox(columns: 6, rows: 3)
        let detail = CellBox(columns: 32, rows: 16)
        print("Thumbnails for a 100×30 screen (9 rows of 6×3 cells; detail 32×16 cells), cells of \(cell.width)×\(cell.height) px, median of \(rounds)")
        print("mode      screen render   bytes/screen   detail render   detail bytes")
        for mode in [ImageMode.symbols, .kitty, .sixel, .iterm] {
            let renderer = ThumbnailRenderer(
                colorMode: .colors256, encoder: mode.usesPixels ? ChafaEncoder(mode: mode, cellPixels: cell) : nil)
            _ = try renderer.render(fileAt: photos[0], in: row)  // libvips' and libchafa's start-up
            var screenTimes: [Double] = []
            var detailTimes: [Double] = []
            var screenBytes = 0
            var detailBytes = 0
            for _ in 0..<rounds {
                var thumbnails: [Thumbnail] = []
                screenTimes.append(try Bench.milliseconds {
                    thumbnails = try photos.map { try renderer.render(fileAt: $0, in: row) }
                })
                screenBytes = thumbnails.map { Self.bytes($0, mode: mode) }.reduce(0, +)
                var large: Thumbnail?
                detailTimes.append(try Bench.milliseconds { large = try renderer.render(fileAt: photos[0], in: detail) })
                detailBytes = large.map { Self.bytes($0, mode: mode) } ?? 0
            }
            print("\(mode.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
                  + String(format: "  %8.2f ms   %9.1f KB   %9.2f ms   %9.1f KB", Bench.median(screenTimes),
                           Double(screenBytes) / 1024, Bench.median(detailTimes), Double(detailBytes) / 1024))
        }
    }

    /// What drawing one thumbnail writes to the terminal in `mode`.
    static func bytes(_ thumbnail: Thumbnail, mode: ImageMode) -> Int {
        if let pixels = thumbnail.pixels {
            // "\e7\e[yy;xxH" + image + "\e8"
            return 2 + 8 + pixels.bytes.count + 2
        }
        var total = 0
        for cell in thumbnail.cells {
            var sgr = 0
            if case .indexed(let index) = cell.style.foreground { sgr += "\u{1B}[38;5;\(index)m".utf8.count }
            if case .indexed(let index) = cell.style.background { sgr += "\u{1B}[48;5;\(index)m".utf8.count }
            total += sgr + String(cell.character).utf8.count
        }
        return total + thumbnail.height * 8  // one cursor move per row
    }
}
