import Foundation
import LocalCloud

extension RestaurantRecord {
    /// The search query: restaurants whose searchable fields (name, type, location,
    /// description) contain every word of `text`, the last one as typed so far, newest first,
    /// or `nil` when `text` has no word.
    ///
    /// The text goes in as data through `Predicate.textSearch(asTyped:)` (LocalCloud's search as
    /// you type: finished words whole, the word being typed as a prefix, CJK by substring), never
    /// into a format string, so quotes, `%@`, `OR` and backslashes are only ever searched for.
    static func searchQuery(_ text: String) -> Query? {
        guard SearchRequest.hasWords(text) else { return nil }
        let query = Query(recordType: recordType, predicate: .textSearch(asTyped: text))
        query.sortDescriptors = [SortDescriptor(key: "creationDate", ascending: false)]
        return query
    }
}

extension CloudDiscoverBackend {
    /// The newest `limit` restaurants matching every word of `text` as typed (case- and
    /// accent-insensitive; the last word may be unfinished), paged by cursor like the full list.
    ///
    /// ```swift
    /// let page = try await backend.search("caf", limit: 50)        // finds "Café Déjà Vu"
    /// let page = try await backend.search("cafe deja", limit: 50)   // finds "Café Déjà Vu"
    /// let more = try await backend.nextPage(after: page.cursor!, limit: 50)
    /// ```
    package func search(_ text: String, limit: Int) async throws -> DiscoverPage {
        await seedOnce()
        guard let query = RestaurantRecord.searchQuery(text) else { return DiscoverPage(restaurants: [], cursor: nil) }
        return try await page(of: query, limit: limit)
    }
}
