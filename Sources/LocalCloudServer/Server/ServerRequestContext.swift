import Hummingbird
import NIOCore

/// Hummingbird's per-request context, carrying who the request acts for once it is known.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Set by the database routes after authentication.
    var identity: RequestIdentity = .anonymous

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Bodies are collected with explicit limits per route (JSON and assets differ).
    var maxUploadSize: Int { 50 * 1024 * 1024 }
}
