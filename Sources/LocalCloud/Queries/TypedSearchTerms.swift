import Foundation

/// What a search-as-you-type text asks for (``Predicate/textSearch(asTyped:)``): finished words
/// as whole tokens, the word still being typed as the start of a token, and CJK runs anywhere.
///
/// ```swift
/// TypedSearchTerms("cafe de").terms    // [.word("cafe"), .prefix("de")]
/// TypedSearchTerms("caf ").terms       // [.word("caf")]: a space finishes the word
/// TypedSearchTerms("拉麵 tok").terms   // [.run(["拉", "麵"]), .prefix("tok")]
/// ```
///
/// Words are runs of letters and digits, as in `self CONTAINS`. Chinese, Japanese and Korean are
/// written without spaces, so a CJK run is matched as a substring: the stores index every CJK
/// character as a token of its own (``segmented(_:)``) and look a run up as a phrase of them.
package struct TypedSearchTerms: Sendable, Equatable {
    package enum Term: Sendable, Equatable {
        /// A finished word: a whole token, case and accents ignored.
        case word(String)
        /// The word being typed: the start of a token.
        case prefix(String)
        /// CJK characters, one token each, that must appear together in this order.
        case run([String])
    }

    package var terms: [Term]

    package init(_ text: String) {
        var terms: [Term] = []
        let words = PredicateRules.words(in: text)
        // The last word is still being typed unless something other than a letter or digit follows it.
        let typing = text.last.map { $0.isLetter || $0.isNumber } ?? false
        for (w, word) in words.enumerated() {
            var pieces: [(cjk: Bool, text: String)] = []
            for character in word {
                let cjk = Self.isCJK(character)
                if let last = pieces.last, last.cjk == cjk {
                    pieces[pieces.count - 1].text.append(character)
                } else {
                    pieces.append((cjk, String(character)))
                }
            }
            for (p, piece) in pieces.enumerated() {
                if piece.cjk {
                    terms.append(.run(piece.text.map(String.init)))
                } else if typing && w == words.count - 1 && p == pieces.count - 1 {
                    terms.append(.prefix(piece.text))
                } else {
                    terms.append(.word(piece.text))
                }
            }
        }
        self.terms = terms
    }

    /// Whether the text names nothing to search for.
    package var isEmpty: Bool { terms.isEmpty }

    /// Whether `text` (a record's searchable strings) matches, as the stores' full-text indexes
    /// decide: what the offline cache uses when it answers a search the server never saw.
    package func matches(_ text: String) -> Bool {
        guard !terms.isEmpty else { return false }
        let tokens = PredicateRules.words(in: Self.segmented(text)).map { Self.fold($0) }
        for term in terms {
            switch term {
            case .word(let word):
                let folded = Self.fold(word[...])
                guard tokens.contains(folded) else { return false }
            case .prefix(let prefix):
                let folded = Self.fold(prefix[...])
                guard tokens.contains(where: { $0.hasPrefix(folded) }) else { return false }
            case .run(let characters):
                let folded = characters.map { Self.fold($0[...]) }
                guard tokens.count >= folded.count,
                      (0...(tokens.count - folded.count)).contains(where: { Array(tokens[$0..<($0 + folded.count)]) == folded })
                else { return false }
            }
        }
        return true
    }

    /// A token as the full-text index compares it: lower case, without diacritics.
    /// CJK characters keep their marks (a kana's voicing mark makes another sound), as in the index.
    static func fold(_ token: Substring) -> String {
        if token.unicodeScalars.contains(where: isCJK) { return token.lowercased() }
        return token.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
    }

    /// Whether a character is written in a script without spaces between words: Han (Chinese
    /// characters, kanji, hanja), kana, Hangul, Bopomofo, and their compatibility forms.
    package static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        return isCJK(scalar)
    }

    package static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2E80...0x2FDF,   // CJK and Kangxi radicals
             0x3005...0x3007,   // 々 〆 〇
             0x3021...0x3029,   // Hangzhou numerals
             0x3031...0x3035,   // kana repeat marks
             0x3040...0x30FF,   // Hiragana, Katakana (with ー)
             0x3100...0x318F,   // Bopomofo, Hangul compatibility jamo
             0x31A0...0x31FF,   // Bopomofo extended, Katakana phonetic extensions
             0x3400...0x4DBF,   // CJK extension A
             0x4E00...0x9FFF,   // CJK unified ideographs
             0xA960...0xA97F,   // Hangul jamo extended A
             0xAC00...0xD7FF,   // Hangul syllables, jamo extended B
             0xF900...0xFAFF,   // CJK compatibility ideographs
             0xFF66...0xFFDC,   // halfwidth Katakana and Hangul
             0x1100...0x11FF,   // Hangul jamo
             0x1B000...0x1B16F, // kana supplement and extended
             0x20000...0x323AF: // CJK extensions B–H
            return true
        default:
            return false
        }
    }

    /// The text with a space on each side of every CJK character, so that a full-text tokenizer
    /// that splits on spaces makes each one a token (and a Latin word beside it a token of its own).
    ///
    /// ```swift
    /// TypedSearchTerms.segmented("一蘭拉麵 Ichiran")   // " 一  蘭  拉  麵  Ichiran"
    /// ```
    package static func segmented(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isCJK) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isCJK(scalar) {
                out.append(" ")
                out.append(scalar)
                out.append(" ")
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
