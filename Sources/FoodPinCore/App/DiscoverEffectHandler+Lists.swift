extension DiscoverEffectHandler {
    /// Runs the Lists screens' effects on background tasks; without a lists store, each answers
    /// with a clear failure instead of nothing.
    func performListEffect(_ effect: Effect, sink: MessageSink<Msg>) {
        guard let lists else {
            let unavailable = DiscoverError(.loadFailed, "Lists are not available here")
            switch effect {
            case .loadLists: sink.post(.listsLoaded(.failure(unavailable)))
            case .loadListEntries(let ref): sink.post(.listEntriesLoaded(ref, .failure(unavailable)))
            case .saveToList(_, let list): sink.post(.savedToList(name: list, .failure(unavailable)))
            case .removeListEntry(let ref, let id): sink.post(.listEntryRemoved(ref, id: id, unavailable))
            default: break
            }
            return
        }
        switch effect {
        case .loadLists:
            run {
                do {
                    sink.post(.listsLoaded(.success(try await lists.overviewAfterUploads(upTo: .seconds(10)))))
                    // Uploads slower than that (a server under load, a retry after a dropped
                    // connection): the screen shows how they ended once they do.
                    if let later = try await lists.overviewOnceUploaded(upTo: .seconds(120)) { sink.post(.listsLoaded(.success(later))) }
                } catch {
                    sink.post(.listsLoaded(.failure(DiscoverError(error, while: .loadFailed))))
                }
            }
        case .loadListEntries(let ref):
            run {
                do { sink.post(.listEntriesLoaded(ref, .success(try await lists.entries(of: ref)))) } catch {
                    sink.post(.listEntriesLoaded(ref, .failure(DiscoverError(error, while: .loadFailed))))
                }
            }
        case .saveToList(let id, let name):
            run {
                do { sink.post(.savedToList(name: name, .success(try await lists.save(restaurantID: id, toList: name)))) } catch {
                    sink.post(.savedToList(name: name, .failure(DiscoverError(error, while: .saveFailed))))
                }
            }
        case .removeListEntry(let ref, let id):
            run {
                do {
                    try await lists.removeEntry(id, from: ref)
                    sink.post(.listEntryRemoved(ref, id: id, nil))
                } catch {
                    sink.post(.listEntryRemoved(ref, id: id, DiscoverError(error, while: .deleteFailed)))
                }
            }
        case .subscribeToListChanges:
            run {
                for await count in lists.changes() where count > 0 { sink.post(.listsChanged(count)) }
            }
        default:
            break
        }
    }
}
