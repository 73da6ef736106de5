import Synchronization

/// What a request's handlers learn that its log line needs: the user it acted for and the
/// error code it failed with. The log middleware opens one per request (a task local), the
/// authenticator and the error middleware fill it in.
final class RequestNote: Sendable {
    @TaskLocal static var current: RequestNote?

    private let state = Mutex<(user: String?, errorCode: String?)>((nil, nil))

    var user: String? { state.withLock { $0.user } }
    var errorCode: String? { state.withLock { $0.errorCode } }

    func setUser(_ user: String?) { state.withLock { $0.user = user } }
    func setErrorCode(_ code: String) { state.withLock { $0.errorCode = code } }
}
