import Foundation

// The completion-handler forms older CloudKit code uses. Handlers run off the caller's thread.
extension Database {
    public func save(_ record: Record, completionHandler: @escaping @Sendable (Record?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await save(record), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func fetch(withRecordID recordID: Record.ID, completionHandler: @escaping @Sendable (Record?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await record(for: recordID), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func delete(withRecordID recordID: Record.ID, completionHandler: @escaping @Sendable (Record.ID?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await deleteRecord(withID: recordID), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Runs a query and hands over its first page of records, as CloudKit's `perform` does.
    public func perform(_ query: Query, inZoneWith zoneID: RecordZone.ID?,
                        completionHandler: @escaping @Sendable ([Record]?, (any Error)?) -> Void) {
        let box = QueryBox(query)
        Task {
            do {
                let (matches, _) = try await records(matching: box.query, inZoneWith: zoneID)
                completionHandler(matches.compactMap { try? $0.1.get() }, nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }
}
