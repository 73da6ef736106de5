import FoodPinCore
import Foundation

/// `foodpin-bench render FILE [COLS ROWS] [256|16|8|none]`: prints a thumbnail with ANSI
/// escapes, to eyeball what ThumbnailRenderer makes of a picture.
struct RenderCommand {
    var file: URL
    var box = CellBox.detail
    var mode = ColorMode.colors256

    init(arguments: [String]) throws {
        guard let path = arguments.first else { throw Bench.Failure(description: "render needs a FILE") }
        file = URL(fileURLWithPath: path)
        if arguments.count >= 3, let columns = Int(arguments[1]), let rows = Int(arguments[2]) {
            box = CellBox(columns: columns, rows: rows)
        }
        if let last = arguments.last, arguments.count > 1, let parsed = ColorMode(rawValue: last) {
            mode = parsed
        }
    }

    func run() throws {
        let thumbnail = try ThumbnailRenderer(colorMode: mode).render(fileAt: file, in: box)
        var out = ""
        for row in 0..<thumbnail.height {
            for cell in thumbnail.row(row) {
                out += "\u{1B}[0" + Self.sgr(cell.style.foreground, base: 38) + Self.sgr(cell.style.background, base: 48) + "m"
                out.append(cell.character)
            }
            out += "\u{1B}[0m\n"
        }
        print(out, terminator: "")
    }

    static func sgr(_ color: Color, base: Int) -> String {
        switch color {
        case .default: ""
        case .indexed(let index): ";\(base);5;\(index)"
        case .rgb(let r, let g, let b): ";\(base);2;\(r);\(g);\(b)"
        }
    }
}
