/// Makes record text safe to draw: nothing a record holds can reach the terminal as a control.
///
/// Record fields are data typed by other users. A stray ESC could recolour the
/// screen, move the cursor or set the window title, so every control character
/// becomes a visible placeholder instead:
///
/// ```swift
/// TextSanitizer.line("Bad\u{1B}[2J")   // "Bad␛[2J"
/// TextSanitizer.line("a\tb\nc")        // "a b⏎c"
/// ```
///
/// - C0 controls become their Control Pictures (`␀`…`␟`), DEL becomes `␡`.
/// - C1 controls (U+0080–U+009F, including the 8-bit CSI) and bidi overrides become `�`.
/// - A tab becomes spaces; line breaks become `⏎` in a single line, or split lines in ``lines(_:)``.
package enum TextSanitizer {
    /// Sanitizes text meant for one line.
    package static func line(_ text: String) -> String {
        guard needsWork(text) else { return text }
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCR: continue // CRLF is one break
            case "\n", "\r", "\u{2028}", "\u{2029}": out.append("⏎")
            case "\t": out.append(" ")
            default: append(scalar, to: &out)
            }
        }
        return String(out)
    }

    /// Sanitizes multi-line text into its lines: CRLF, CR, LF and U+2028/9 all break lines,
    /// and tabs expand to the next multiple of four columns.
    package static func lines(_ text: String) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        var column = 0
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCR: continue
            case "\n", "\r", "\u{2028}", "\u{2029}":
                result.append(String(current))
                current = String.UnicodeScalarView()
                column = 0
            case "\t":
                let spaces = 4 - column % 4
                current.append(contentsOf: repeatElement(" ", count: spaces))
                column += spaces
            default:
                append(scalar, to: &current)
                column += 1
            }
        }
        result.append(String(current))
        return result
    }

    private static func needsWork(_ text: String) -> Bool {
        text.unicodeScalars.contains { isUnsafe($0) || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || isBidiControl(v) || v == 0x2028 || v == 0x2029
    }

    private static func isBidiControl(_ v: UInt32) -> Bool {
        (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView) {
        let v = scalar.value
        if v < 0x20 {
            out.append(Unicode.Scalar(0x2400 + v) ?? "\u{FFFD}")
        } else if v == 0x7F {
            out.append("\u{2421}")
        } else if (0x80...0x9F).contains(v) || isBidiControl(v) {
            out.append("\u{FFFD}")
        } else {
            out.append(scalar)
        }
    }
}
