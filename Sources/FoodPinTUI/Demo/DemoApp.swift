import Dispatch
import FoodPinCore

/// A small app that exercises the terminal runtime before the Discover screen exists.
///
/// `foodpin --demo`: a spinner for the first second while rows "load" on a background
/// queue (posted through the sink, so they arrive without a keypress), then 200 rows
/// with a CJK row, an emoji row and a row carrying a raw escape character, a block of
/// coloured cells, the last decoded key, and a "too small" message under 30×8.
final class DemoApp: TerminalApp {
    enum Message: Sendable {
        case resized(width: Int, height: Int)
        case tick
        case loaded([String])
        case move(by: Int)
        case jump(toEnd: Bool)
        case page(by: Int)
        case pressed(Key)
        case quit(Int32)
        /// Traps on purpose, to prove a crash still restores the terminal.
        case crash
    }

    static let minimumWidth = 30
    static let minimumHeight = 8
    static let spinnerFrames: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// Where the column after the name starts, whatever the name's characters.
    static let dividerColumn = 32

    private let colorMode: ColorMode
    private var width = 0
    private var height = 0
    private var started = false
    private var loading = true
    private var spinnerFrame = 0
    private var rows: [String] = []
    private var selected = 0
    private var top = 0
    private var lastKey: Key?
    private(set) var shouldQuit = false
    private(set) var exitCode: Int32 = 0

    init(colorMode: ColorMode) {
        self.colorMode = colorMode
    }

    var tickInterval: Duration? { loading ? .milliseconds(80) : nil }

    func message(for event: TerminalEvent) -> Message? {
        switch event {
        case .resize(let width, let height): return .resized(width: width, height: height)
        case .tick: return .tick
        case .key(let key): return message(for: key)
        }
    }

    private func message(for key: Key) -> Message? {
        switch key {
        case .character("j"), .down: .move(by: 1)
        case .character("k"), .up: .move(by: -1)
        case .character("g"), .home: .jump(toEnd: false)
        case .character("G"), .end: .jump(toEnd: true)
        case .pageDown: .page(by: 1)
        case .pageUp: .page(by: -1)
        case .wheelDown: .move(by: 3)
        case .wheelUp: .move(by: -3)
        case .character("q"): .quit(0)
        case .character("X"): .quit(3)
        case .character("!"): .crash
        case .control("c"): nil  // left to the runtime, which quits with 130
        default: .pressed(key)
        }
    }

    func apply(_ message: Message, sink: MessageSink<Message>) {
        switch message {
        case .resized(let width, let height):
            (self.width, self.height) = (width, height)
            if !started {
                started = true
                DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                    sink.post(.loaded(Self.sampleRows()))
                }
            }
        case .tick:
            spinnerFrame = (spinnerFrame + 1) % Self.spinnerFrames.count
        case .loaded(let rows):
            self.rows = rows
            loading = false
        case .move(let delta):
            select(selected + delta)
        case .jump(let toEnd):
            select(toEnd ? rows.count - 1 : 0)
        case .page(let pages):
            select(selected + pages * max(1, listHeight - 1))
        case .pressed(let key):
            lastKey = key
            return
        case .quit(let code):
            exitCode = code
            shouldQuit = true
        case .crash:
            fatalError("demo crash requested with !")
        }
    }

    private var listHeight: Int { max(0, height - 2) }

    private func select(_ index: Int) {
        guard !rows.isEmpty else { return }
        selected = min(max(0, index), rows.count - 1)
        if selected < top { top = selected }
        if selected >= top + listHeight { top = selected - listHeight + 1 }
    }

    static func sampleRows() -> [String] {
        let names = ["Golden Dragon", "Noodle Bar", "Cafe Deadline", "Pizza Planet", "Taco Town", "Curry House"]
        return (0..<200).map { index in
            switch index {
            case 2: "東京ラーメン屋"
            case 3: "🍜 Pho & 🍣 Sushi"
            case 4: "Escape test"
            default: "\(names[index % names.count]) \(index + 1)"
            }
        }
    }

    func view(width: Int, height: Int) -> Grid {
        var grid = Grid(width: width, height: height)
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else {
            let lines = ["Terminal too small", "need \(Self.minimumWidth)x\(Self.minimumHeight), have \(width)x\(height)"]
            for (offset, line) in lines.enumerated() {
                let x = max(0, (width - DisplayWidth.of(line)) / 2)
                grid.put(line, x: x, y: max(0, height / 2 - 1) + offset)
            }
            return grid
        }

        let title = grid.put("FoodPin demo ", x: 0, y: 0, style: CellStyle(attributes: .bold))
        let swatches: [Color] = [.indexed(196), .indexed(208), .indexed(226), .indexed(46),
                                 .indexed(33), .indexed(129), .rgb(255, 105, 180), .rgb(40, 40, 40)]
        for (offset, color) in swatches.enumerated() {
            grid[title + offset, 0] = Cell(" ", style: CellStyle(background: color))
        }
        grid.put(" \(width)x\(height)", x: title + swatches.count, y: 0)

        if loading {
            let frame = Self.spinnerFrames[spinnerFrame]
            grid.put("\(frame) Loading restaurants…", x: 1, y: 1, style: CellStyle(foreground: .indexed(39)))
        } else {
            for line in 0..<listHeight where top + line < rows.count {
                drawRow(top + line, y: 1 + line, into: &grid)
            }
        }

        let help = "j/k move  g/G ends  q quit"
        grid.fill(x: 0, y: height - 1, width: width, height: 1, style: CellStyle(attributes: .reverse))
        let end = grid.put(help, x: 0, y: height - 1, style: CellStyle(attributes: .reverse))
        if let lastKey {
            let text = "key:\(lastKey)"
            grid.put(text, x: max(end + 1, width - DisplayWidth.of(text)), y: height - 1, style: CellStyle(attributes: .reverse))
        }
        return grid
    }

    private func drawRow(_ index: Int, y: Int, into grid: inout Grid) {
        let isSelected = index == selected
        let style = isSelected ? CellStyle(attributes: .reverse) : .plain
        grid.fill(x: 0, y: y, width: grid.width, height: 1, style: style)
        grid.put(isSelected ? ">" : " ", x: 0, y: y, style: style)
        let number = String(index + 1)
        grid.put(String(repeating: "0", count: max(0, 3 - number.count)) + number, x: 2, y: y, style: style)
        let nameEnd = grid.put(rows[index], x: 7, y: y, style: CellStyle(attributes: style.attributes.union(.bold)),
                               maxX: Self.dividerColumn - 1)
        if index == 4 {
            // A raw ESC placed straight into a cell: the renderer must draw it as "?".
            grid[nameEnd + 1, y] = Cell("\u{1B}", style: style)
            grid.put("[31mX", x: nameEnd + 2, y: y, style: style)
        }
        grid.put("|", x: Self.dividerColumn, y: y, style: style)
        let detail = index % 3 == 0 ? "Thai" : (index % 3 == 1 ? "Cafe" : "Ramen")
        grid.put(detail, x: Self.dividerColumn + 2, y: y, style: CellStyle(foreground: .indexed(2), attributes: style.attributes))
    }
}
