import Hummingbird
import LocalCloud

/// Turns every error a route throws into the reference's error body with its HTTP status,
/// so no handler writes its own and nothing reaches the client as a bare 500.
struct ErrorResponseMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let serverError = ServerError(wrapping: error)
            RequestNote.current?.setErrorCode(serverError.code.rawValue)
            if serverError.code == .internalError {
                context.logger.error("internal error: \(String(reflecting: error))")
            }
            var response = CloudServer.jsonResponse(serverError.json.bytes, status: serverError.status)
            if let retryAfter = serverError.retryAfter {
                response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
            }
            return response
        }
    }
}
