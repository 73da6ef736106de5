extension DiscoverEffectHandler {
    /// Starts `request` after its debounce, cancelling the search before it, so at most one
    /// search query runs and an older one never posts after a newer one started.
    ///
    /// `update` also drops answers of older generations, so a result that slips through a
    /// cancellation (it was already posted) is still never shown over a newer one.
    func startSearch(_ request: SearchRequest, sink: MessageSink<Msg>) {
        let backend = backend
        searchTask.withLock { current in
            current?.cancel()
            current = Task.detached {
                if request.delay > .zero {
                    do { try await Task.sleep(for: request.delay) } catch { return }
                }
                guard !Task.isCancelled else { return }
                let result = await Self.result { try await backend.search(request.text, limit: request.limit) }
                guard !Task.isCancelled else { return }
                sink.post(.searchLoaded(request, .first, result))
            }
        }
    }
}
