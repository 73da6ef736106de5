import Foundation

/// One token of a predicate format string.
struct PredicateToken: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// A bare word: a key, a keyword (`AND`, `IN`, …) or a selector like `distanceToLocation:fromLocation:`.
        case word(String)
        /// A `#`-escaped word: always a key, never a keyword.
        case escapedWord(String)
        case string(String)
        /// A number as written (without sign); the parser converts it.
        case number(String)
        /// `%@`, `%K`, or a printf-style value placeholder such as `%d`.
        case placeholder(Character)
        /// `$name`.
        case variable(String)
        /// Operators and punctuation: `==`, `!=`, `<=`, `&&`, `(`, `{`, `,`, `[`, `.`, `@`, …
        case symbol(String)
        case end
    }

    var kind: Kind
    /// Offset of the token's first character, in characters from the start of the format.
    var offset: Int
    /// The token as written, for error messages.
    var text: String
}

/// Splits a predicate format into tokens. Never fails on odd input: anything it does not
/// understand becomes a `CloudError(.invalidArguments)` naming the character and its offset.
struct PredicateLexer {
    /// Unicode scalars, not Characters: a combining mark after a quote must not swallow the quote.
    private let chars: [Unicode.Scalar]
    private var index = 0

    init(_ format: String) {
        chars = Array(format.unicodeScalars)
    }

    static func tokenize(_ format: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(format)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        index + ahead < chars.count ? chars[index + ahead] : nil
    }

    private static func isWordStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
    }

    private static func isWordPart(_ c: Unicode.Scalar) -> Bool {
        isWordStart(c) || isDigit(c)
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(c)
    }

    private static func isHexDigit(_ c: Unicode.Scalar) -> Bool {
        isDigit(c) || ("a"..."f").contains(c) || ("A"..."F").contains(c)
    }

    private func text(from start: Int) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: chars[start..<index])
        return text
    }

    mutating func next() throws -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return PredicateToken(kind: .end, offset: start, text: "end of input") }

        if Self.isWordStart(c) {
            readWord()
            // Selector-style function names: `distanceToLocation:fromLocation:`.
            while peek() == ":" {
                index += 1
                readWord()
            }
            let word = text(from: start)
            return PredicateToken(kind: .word(word), offset: start, text: word)
        }
        if c == "#", let n = peek(1), Self.isWordStart(n) {
            index += 1
            readWord()
            return PredicateToken(kind: .escapedWord(text(from: start + 1)), offset: start, text: text(from: start))
        }
        if c == "$" {
            index += 1
            readWord()
            return PredicateToken(kind: .variable(text(from: start + 1)), offset: start, text: text(from: start))
        }
        if Self.isDigit(c) || (c == "." && peek(1).map(Self.isDigit) == true) {
            try readNumber(start: start)
            return PredicateToken(kind: .number(text(from: start)), offset: start, text: text(from: start))
        }
        if c == "'" || c == "\"" {
            let value = try readString(quote: c, start: start)
            return PredicateToken(kind: .string(value), offset: start, text: text(from: start))
        }
        if c == "%" {
            index += 1
            // Skip printf length modifiers (`%ld`, `%lld`, `%lu`).
            while let m = peek(), m == "l" || m == "h" || m == "q" { index += 1 }
            guard let spec = peek() else {
                throw PredicateLexer.error("incomplete placeholder '%' at offset \(start)")
            }
            index += 1
            switch spec {
            case "@", "K", "d", "i", "u", "f", "g", "e":
                return PredicateToken(kind: .placeholder(Character(spec)), offset: start, text: text(from: start))
            default:
                throw PredicateLexer.error("unsupported placeholder '\(text(from: start).unicodeScalars.map(Self.visible).joined())' at offset \(start)")
            }
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return PredicateToken(kind: .symbol(symbol), offset: start, text: symbol)
        }
        index += 1
        throw PredicateLexer.error("unexpected character '\(Self.visible(c))' at offset \(start)")
    }

    /// Longest first, so `<=` wins over `<`.
    private static let symbols = [
        "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
        "=", "<", ">", "!", "(", ")", "{", "}", ",", "[", "]", ".", "@", "+", "-", "*", "/", "**", ";",
    ].sorted { $0.count > $1.count }

    private func matches(_ symbol: String) -> Bool {
        var i = index
        for s in symbol.unicodeScalars {
            guard i < chars.count, chars[i] == s else { return false }
            i += 1
        }
        return true
    }

    private mutating func readWord() {
        while let c = peek(), Self.isWordPart(c) { index += 1 }
    }

    private mutating func readNumber(start: Int) throws {
        if peek() == "0", let x = peek(1), x == "x" || x == "X" {
            index += 2
            while let c = peek(), Self.isHexDigit(c) { index += 1 }
        } else {
            while let c = peek(), Self.isDigit(c) { index += 1 }
            if peek() == ".", peek(1).map(Self.isDigit) == true || peek(1).map(Self.isWordPart) != true {
                index += 1
                while let c = peek(), Self.isDigit(c) { index += 1 }
            }
            if let e = peek(), e == "e" || e == "E" {
                let save = index
                index += 1
                if let s = peek(), s == "+" || s == "-" { index += 1 }
                if let d = peek(), Self.isDigit(d) {
                    while let c = peek(), Self.isDigit(c) { index += 1 }
                } else {
                    index = save
                }
            }
        }
        if let c = peek(), Self.isWordPart(c) {
            throw PredicateLexer.error("malformed number '\(text(from: start))\(Self.visible(c))' at offset \(start)")
        }
    }

    private mutating func readString(quote: Unicode.Scalar, start: Int) throws -> String {
        index += 1
        var value = ""
        while true {
            guard let c = peek() else {
                throw PredicateLexer.error("unterminated string starting at offset \(start)")
            }
            index += 1
            if c == quote { return value }
            guard c == "\\" else {
                value.unicodeScalars.append(c)
                continue
            }
            guard let e = peek() else {
                throw PredicateLexer.error("unterminated string starting at offset \(start)")
            }
            index += 1
            switch e {
            case "n": value += "\n"
            case "t": value += "\t"
            case "r": value += "\r"
            case "0": value += "\0"
            case "u":
                let digits = chars[index..<min(index + 4, chars.count)]
                var hex = ""
                hex.unicodeScalars.append(contentsOf: digits)
                guard digits.count == 4, digits.allSatisfy(Self.isHexDigit),
                      let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code)
                else {
                    throw PredicateLexer.error("bad \\u escape in string at offset \(index - 2)")
                }
                index += 4
                value.unicodeScalars.append(scalar)
            default: value.unicodeScalars.append(e)
            }
        }
    }

    /// Shows control characters as `U+XXXX` so error messages never carry raw control bytes.
    static func visible(_ c: Unicode.Scalar) -> String {
        switch c.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
            return "U+" + String(c.value, radix: 16, uppercase: true)
        default:
            return String(c)
        }
    }

    static func error(_ message: String) -> CloudError {
        CloudError(.invalidArguments, message)
    }
}
