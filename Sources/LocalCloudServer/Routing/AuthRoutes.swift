import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// POST /auth/1/{container}/signin: a password for a web auth token; GET: the sign-in page
// that AUTHENTICATION_REQUIRED's `redirectURL` points to. POST /auth/1/{container}/signout
// (`?ckWebAuthToken=`): revokes that token, which ends its push within a second or so.
extension CloudServer {
    static let signinPath = "auth/1/:container/signin"
    /// Sign-in bodies are tiny; anything larger is refused before it is read.
    static let maxSigninBytes = 16 * 1024

    func addAuthRoutes(to router: Router<ServerRequestContext>) {
        // The token is its own credential: whoever holds it may end it. Always 200 with whether a
        // live token was revoked, so the answer tells nothing about tokens the caller does not hold.
        router.post("auth/1/:container/signout") { request, context in
            let container = try context.parameters.require("container")
            try StoreRegistry.validate(containerIdentifier: container)
            guard let token = request.uri.queryParameters["ckWebAuthToken"].map(String.init), !token.isEmpty else {
                throw ServerError(.badRequest, "ckWebAuthToken is missing: it names the sign-in to end")
            }
            guard let identity = self.identity else { throw ServerError(.notFound, "This server has no accounts") }
            let revoked = try await identity.store.signOut(webAuthToken: token, container: container, now: identity.now())
            return Self.jsonResponse(JSONValue.object(["signedOut": .bool(revoked)]).bytes)
        }
        router.get(RouterPath(Self.signinPath)) { _, context in
            let container = try context.parameters.require("container")
            try StoreRegistry.validate(containerIdentifier: container)
            return Self.htmlResponse(SigninPage.form(container: container))
        }
        router.post(RouterPath(Self.signinPath)) { request, context in
            let container = try context.parameters.require("container")
            try StoreRegistry.validate(containerIdentifier: container)
            let bytes = try await self.collectBody(request, limit: Self.maxSigninBytes)
            // `curl -d '{…}'` labels JSON as a form: a body that opens with `{` is JSON whatever its label.
            let isForm = request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
                && bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) != UInt8(ascii: "{")
            do {
                let (user, password) = try Self.signinCredentials(bytes, isForm: isForm)
                let token = try await self.signIn(container: container, user: user, password: password)
                if isForm { return Self.htmlResponse(SigninPage.signedIn(container: container, user: user, token: token)) }
                return Self.jsonResponse(JSONValue.object(["ckWebAuthToken": .string(token)]).bytes)
            } catch let error where isForm {
                // The page again, with the reason, for people; JSON errors for programs.
                let serverError = ServerError(wrapping: error)
                var response = Self.htmlResponse(SigninPage.form(container: container, error: serverError.reason),
                                                 status: serverError.status)
                if let retryAfter = serverError.retryAfter {
                    response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
                }
                return response
            }
        }
    }

    /// Checks a password (throttled per account) and issues a web auth token.
    ///
    /// - Throws: AUTHENTICATION_FAILED for a wrong user or password; THROTTLED while the account is locked out.
    func signIn(container: String, user: String, password: String) async throws -> String {
        guard let identity else { throw ServerError(.notFound, "This server has no accounts") }
        let now = identity.now()
        if let wait = identity.throttle.retryAfter(container: container, user: user, now: now) {
            throw ServerError(.throttled, "Too many failed sign-ins for this user: try again later", retryAfter: wait)
        }
        guard try await identity.store.checkPassword(user: user, password: password, container: container, hasher: identity.hasher) else {
            identity.throttle.recordFailure(container: container, user: user, now: identity.now())
            throw ServerError(.authenticationFailed, "Wrong user name or password")
        }
        identity.throttle.recordSuccess(container: container, user: user)
        return try await identity.store.issueWebAuthToken(user: user, container: container, lifetime: identity.tokenLifetime,
                                                          now: identity.now())
    }

    /// `{"user", "password"}` as JSON, or `user=…&password=…` from the sign-in page's form.
    static func signinCredentials(_ bytes: [UInt8], isForm: Bool) throws -> (user: String, password: String) {
        let user: String?
        let password: String?
        if isForm {
            var fields: [String: String] = [:]
            for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { continue }
                let decode = { (text: Substring) in
                    String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                }
                if let key = decode(parts[0]), let value = decode(parts[1]) { fields[key] = value }
            }
            user = fields["user"]
            password = fields["password"]
        } else {
            guard let json = try? JSONValue.parse(bytes), json.objectValue != nil else {
                throw ServerError(.badRequest, "The body must be a JSON object {\"user\", \"password\"}")
            }
            user = json["user"]?.stringValue
            password = json["password"]?.stringValue
        }
        guard let user, !user.isEmpty, let password else {
            throw ServerError(.badRequest, "Sign-in needs a user and a password")
        }
        return (user, password)
    }

    static func htmlResponse(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            .init("X-Content-Type-Options")!: "nosniff",
            .init("Referrer-Policy")!: "no-referrer",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
