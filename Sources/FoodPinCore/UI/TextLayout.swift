/// Truncation and word wrapping by display width.
enum TextLayout {
    /// Cuts `text` to `width` columns, ending in "…" when it had to cut.
    static func truncate(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = DisplayWidth.of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// Wraps sanitized lines to `width` columns, at spaces where possible, breaking long words.
    static func wrap(_ lines: [String], width: Int) -> [String] {
        guard width > 0 else { return [] }
        var out: [String] = []
        for line in lines {
            if line.isEmpty { out.append(""); continue }
            var current = ""
            var currentWidth = 0
            for word in line.split(separator: " ", omittingEmptySubsequences: false) {
                let wordWidth = DisplayWidth.of(String(word))
                let needed = currentWidth == 0 ? wordWidth : currentWidth + 1 + wordWidth
                if needed <= width {
                    if currentWidth > 0 { current += " " }
                    current += word
                    currentWidth = needed
                    continue
                }
                if currentWidth > 0 { out.append(current); current = ""; currentWidth = 0 }
                for character in word {
                    let w = DisplayWidth.of(character)
                    if currentWidth + w > width { out.append(current); current = ""; currentWidth = 0 }
                    current.append(character)
                    currentWidth += w
                }
            }
            out.append(current)
        }
        return out
    }
}
