/// One search as `update` asks for it: the typed text, which edit it answers, and how long to
/// wait for more typing before querying (the debounce).
///
/// ```swift
/// let request = SearchRequest(text: "noodle", generation: 3, limit: 50, delay: .milliseconds(150))
/// // the handler cancels the search before it, waits 150 ms, queries, and posts
/// // .searchLoaded(request, .first, result); update drops it unless generation 3 is still current.
/// ```
package struct SearchRequest: Hashable, Sendable {
    /// What was typed, as data: it only ever becomes quoted full-text tokens.
    package var text: String
    /// Increases with every edit; a result for an older generation is stale.
    package var generation: Int
    package var limit: Int
    /// How long the handler waits before querying; a newer search cancels the wait.
    package var delay: Duration

    package init(text: String, generation: Int, limit: Int, delay: Duration) {
        self.text = text
        self.generation = generation
        self.limit = limit
        self.delay = delay
    }

    /// The text as it is asked: without leading spaces, and trailing ones kept as one, since a
    /// space after the last word finishes it (it then matches only whole words, not as a prefix).
    ///
    /// ```swift
    /// SearchRequest.normalized("  caf")    // "caf": finds "Café"
    /// SearchRequest.normalized("caf   ")   // "caf ": the word is finished
    /// ```
    package static func normalized(_ text: String) -> String {
        let leading = text.drop { $0.isWhitespace }
        var trimmed = leading
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        return trimmed.count < leading.count ? String(trimmed) + " " : String(trimmed)
    }

    /// Whether `text` has a word to search for (a letter or a digit). Text of punctuation
    /// alone, such as `%@` or `"`, matches nothing and needs no query.
    package static func hasWords(_ text: String) -> Bool {
        text.contains { $0.isLetter || $0.isNumber }
    }
}
