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

    /// Whether `text` has a word to search for (a letter or a digit). Text of punctuation
    /// alone, such as `%@` or `"`, matches nothing and needs no query.
    package static func hasWords(_ text: String) -> Bool {
        text.contains { $0.isLetter || $0.isNumber }
    }
}
