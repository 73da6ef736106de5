import Testing
@testable import FoodPinCore

/// Issue 13: the image-mode decision table, from the terminal's replies (and the environment's hints) to the mode.
@Suite struct ImageModeDecisionTests {
    static let kittyOK = "\u{1B}_Gi=31;OK\u{1B}\\"
    static let kittyError = "\u{1B}_Gi=31;EINVAL:Zero width/height not allowed\u{1B}\\"
    static let da1Plain = "\u{1B}[?62;22c"
    static let da1Sixel = "\u{1B}[?62;4;22c"
    static let vt100 = "\u{1B}[?1;2c"

    struct Row: Sendable, CustomTestStringConvertible {
        var reply: String?
        var environment: [String: String]
        var expected: ImageMode
        var testDescription: String { "\(reply.map { $0.debugDescription } ?? "no reply") \(environment) → \(expected)" }
    }

    static let xterm = ["TERM": "xterm-256color"]

    static let table: [Row] = [
        // kitty, Ghostty, Konsole: the graphics query answered OK, then DA1.
        Row(reply: kittyOK + da1Plain, environment: ["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"], expected: .kitty),
        // WezTerm says xterm-256color and speaks kitty graphics (and sixel): the reply decides, kitty first.
        Row(reply: kittyOK + da1Sixel, environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], expected: .kitty),
        // foot, xterm -ti vt340, mlterm, Windows Terminal: no kitty reply, DA1 with 4.
        Row(reply: da1Sixel, environment: ["TERM": "foot"], expected: .sixel),
        Row(reply: da1Sixel, environment: xterm, expected: .sixel),
        // A kitty error is no kitty support.
        Row(reply: kittyError + da1Plain, environment: xterm, expected: .symbols),
        // iTerm2 answers DA1; its inline images have no query: the hint names them.
        Row(reply: da1Plain, environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"], expected: .iterm),
        // A plain terminal: symbols.
        Row(reply: da1Plain, environment: xterm, expected: .symbols),
        Row(reply: vt100, environment: ["TERM": "vt100"], expected: .symbols),
        // Nothing answered: symbols, whatever TERM or the hints say.
        Row(reply: nil, environment: ["TERM": "xterm-kitty", "KITTY_WINDOW_ID": "3"], expected: .symbols),
        Row(reply: nil, environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"], expected: .symbols),
        // Inside tmux or screen: symbols, even when a reply (the multiplexer's own) says more.
        Row(reply: kittyOK + da1Sixel, environment: ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"], expected: .symbols),
        Row(reply: da1Sixel, environment: ["TERM": "screen-256color"], expected: .symbols),
        Row(reply: da1Sixel, environment: ["TERM": "xterm-256color", "STY": "1234.pts-0"], expected: .symbols),
        // Stray input before the replies (a key typed at start-up) does not confuse the parse.
        Row(reply: "jk" + kittyOK + da1Plain, environment: xterm, expected: .kitty),
    ]

    @Test(arguments: table)
    func auto(_ row: Row) {
        let replies = row.reply.map { TerminalReplies(parsing: Array($0.utf8)) }
        #expect(ImageModeDecision.decide(.auto, environment: row.environment, replies: replies) == row.expected)
    }

    @Test func explicitModesNeedNoQueryAndWinOverReplies() {
        let tmux = ["TERM": "tmux-256color", "TMUX": "x"]
        let pairs: [(ImageModeDecision.Choice, ImageMode)] = [
            (.kitty, .kitty), (.sixel, .sixel), (.iterm, .iterm), (.symbols, .symbols), (.none, .none),
        ]
        for (choice, mode) in pairs {
            #expect(!ImageModeDecision.needsQuery(choice, environment: Self.xterm))
            #expect(ImageModeDecision.decide(choice, environment: tmux, replies: nil) == mode)
        }
        #expect(ImageModeDecision.needsQuery(.auto, environment: Self.xterm))
        #expect(!ImageModeDecision.needsQuery(.auto, environment: ["TERM": "linux"]), "the console would print the query")
        #expect(!ImageModeDecision.needsQuery(.auto, environment: tmux), "tmux would answer for itself")
        #expect(ImageModeDecision.needsQuery(.auto, environment: tmux, passthrough: true))
        #expect(ImageModeDecision.decide(.auto, environment: tmux, replies: TerminalReplies(parsing: Array(Self.da1Sixel.utf8)),
                                         passthrough: true) == .sixel)
    }

    @Test func theWaitEndsAtTheDA1Reply() {
        #expect(!TerminalReplies.isComplete(Array(Self.kittyOK.utf8)), "kitty answers first; DA1 is still to come")
        #expect(!TerminalReplies.isComplete(Array("\u{1B}[?62;2".utf8)))
        #expect(TerminalReplies.isComplete(Array((Self.kittyOK + Self.da1Plain).utf8)))
        #expect(TerminalReplies(parsing: Array(Self.da1Sixel.utf8)).deviceAttributes == [62, 4, 22])
        #expect(ImageModeDecision.query == "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[c")
    }

    @Test func hintsShortenTheWaitButDecideNothing() {
        #expect(ImageModeDecision.hintsKitty(["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"]))
        #expect(ImageModeDecision.hintsKitty(["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"]))
        #expect(!ImageModeDecision.hintsKitty(Self.xterm))
        #expect(TerminalReplies.isComplete(Array(Self.kittyOK.utf8), expectsKitty: true), "kitty said OK: no need to wait for DA1")
        #expect(!TerminalReplies.isComplete(Array(Self.kittyError.utf8), expectsKitty: true))
        #expect(!TerminalReplies.isComplete([], expectsKitty: true))
    }

    @Test func cellPixelSizeFromTheWindowSize() {
        #expect(CellPixelSize.from(pixelWidth: 1000, pixelHeight: 600, columns: 100, rows: 30) == CellPixelSize(width: 10, height: 20))
        #expect(CellPixelSize.from(pixelWidth: 0, pixelHeight: 0, columns: 100, rows: 30) == .fallback, "the terminal does not say")
        #expect(CellPixelSize.from(pixelWidth: 100, pixelHeight: 30, columns: 100, rows: 30) == .fallback, "absurd: 1×1 px cells")
    }
}
