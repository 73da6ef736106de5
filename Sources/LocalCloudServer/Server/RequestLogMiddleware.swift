import Hummingbird
import Logging
import NIOCore

/// One line per request: method, path, status and milliseconds. The path is logged without its
/// query string, which carries `ckAPIToken` and `ckWebAuthToken`.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, since: start)
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method.rawValue) \(request.uri.path) \(status) \(String(format: "%.1f", ms))ms")
    }
}
