import Foundation
import LocalCloud

extension CloudDiscoverBackend {
    /// The restaurant a command line names (`foodpin edit NAME_OR_RECORD`): the one with that
    /// record name, else the one with that name (exactly, then ignoring case and accents). While the
    /// server is away, names are looked up in the cached first page.
    ///
    /// - Throws: ``DiscoverError``: `.notFound` when nothing has that name, `.saveFailed` with the
    ///   `.name` field when several do (their record names are listed, to pick one).
    package func restaurant(namedOrRecord text: String) async throws -> Restaurant {
        let id = Record.ID(recordName: text)
        var isOffline = false
        do {
            switch try await database.records(for: [id], desiredKeys: RestaurantRecord.listKeys)[id] {
            case .success(let record)? where record.recordType == RestaurantRecord.recordType:
                return RestaurantRecord.restaurant(from: record)
            case .failure(let error as CloudError)? where error.code == .networkUnavailable || error.code == .networkFailure:
                isOffline = true
            default:
                break
            }
        } catch {
            let failure = DiscoverError(error, while: .loadFailed)
            guard failure.code == .offline else { throw failure }
            isOffline = true
        }
        var candidates: [Restaurant] = []
        if !isOffline {
            do {
                candidates = try await restaurants(matching: text, limit: nil, includingImages: false)
            } catch let error as DiscoverError where error.code == .offline {
                isOffline = true
            }
        }
        if isOffline {
            candidates = await cachedFirstPage(limit: QueryOperation.maximumResultsLimit)?.restaurants ?? []
        }
        let exact = candidates.filter { $0.name == text }
        let matches = !exact.isEmpty ? exact : candidates.filter {
            $0.name.compare(text, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame
        }
        guard let found = matches.first else {
            throw DiscoverError(.notFound, "No restaurant is named “\(text)” or has that record name"
                + (isOffline ? " (offline: only the cached first page was searched)" : ""))
        }
        guard matches.count == 1 else {
            throw DiscoverError(.saveFailed, "\(matches.count) restaurants are named “\(text)”: give one's record name ("
                + matches.map(\.id).joined(separator: ", ") + ")", field: .name)
        }
        return found
    }
}
