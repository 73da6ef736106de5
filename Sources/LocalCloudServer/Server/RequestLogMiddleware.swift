import Foundation
import Hummingbird
import Logging
import NIOCore

/// One line per request: method, path, status and milliseconds. The path is logged without its
/// query string, which carries `ckAPIToken` and `ckWebAuthToken`.
///
/// With a ``RequestJournal`` (the web console is on), each line also goes there with the user
/// and error code the handlers noted (``RequestNote``), and push streams are counted while open.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let logger: Logger
    var journal: RequestJournal?

    init(logger: Logger, journal: RequestJournal? = nil) {
        self.logger = logger
        self.journal = journal
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let note = RequestNote()
        do {
            var response = try await RequestNote.$current.withValue(note) { try await next(request, context) }
            log(request, status: response.status.code, since: start, note: note)
            if let journal, response.headers[.contentType]?.hasPrefix("text/event-stream") == true {
                let body = response.body
                response.body = ResponseBody { writer in
                    journal.streams(1)
                    defer { journal.streams(-1) }
                    try await body.write(writer)
                }
            }
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start, note: note)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant, note: RequestNote) {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(status) \(String(format: "%.1f", ms))ms")
        // The console's own polling (the live log, its charts and files) would drown the log it shows.
        let path = request.uri.path
        guard !path.hasPrefix("/console/static/"), !path.hasPrefix("/console/telemetry/"), path != "/console/logs.json" else { return }
        journal?.record(method: request.method.rawValue, path: path, status: status, milliseconds: ms,
                        user: note.user, errorCode: note.errorCode)
    }
}
