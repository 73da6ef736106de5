import Foundation
import Hummingbird
import LocalCloud
import NIOCore

// `/console`: the web console, server-rendered HTML behind a session cookie. Every page and
// action is registered through ``consoleRoute(_:_:_:_:)``, which checks the session, the CSRF
// token of every POST, and sets the headers that lock the page down.
extension CloudServer {
    static let consoleCookie = "localcloud_console"
    /// The signed-out browser's cookie: its digest is the sign-in form's CSRF token (login CSRF).
    static let consoleSigninCookie = "localcloud_console_signin"
    /// Console forms are small; the schema import is the largest.
    static let maxConsoleFormBytes = 1024 * 1024

    /// The console's sections, in the navigation's order.
    static let consoleSections: [(path: String, label: String)] = [
        ("overview", "Overview"), ("schema", "Schema"), ("records", "Records"), ("zones", "Zones & subscriptions"),
        ("people", "Tokens & users"), ("logs", "Logs"), ("telemetry", "Telemetry"), ("audit", "Audit log"),
    ]

    func addConsoleRoutes(to router: Router<ServerRequestContext>) {
        guard let console = webConsole else { return }
        router.get("console") { _, _ in Self.consoleRedirect("/console/overview") }
        router.get("console/static/:file") { _, context in
            guard let file = ConsoleResources.staticFile(try context.parameters.require("file")) else {
                throw ServerError(.notFound, "No such file")
            }
            var response = Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-cache"],
                                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            Self.lockDown(&response)
            return response
        }
        router.get("console/signin") { request, _ in
            var pre = request.cookies[Self.consoleSigninCookie]?.value ?? ""
            if !Self.isSigninNonce(pre) { pre = Secret.apiToken() }
            var response = try self.consoleHTML(console, "signin", [
                "title": "Sign in", "next": Self.safeNext(request.uri.queryParameters["next"].map(String.init)),
                "csrf": Self.signinCSRF(pre),
            ])
            self.setSigninCookie(&response, pre)
            return response
        }
        router.post("console/signin") { request, _ in try await self.consoleSignIn(request, console: console) }
        consoleRoute(router, .post, "signout") { request in
            try await console.store.endSession(token: request.sessionToken, now: console.clock.now)
            try await console.audit(request.admin, "console.signout", "signed out")
            var response = Self.consoleRedirect("/console/signin")
            response.setCookie(Cookie(name: Self.consoleCookie, value: "", maxAge: 0, path: "/console",
                                      secure: self.configuration.scheme == "https", httpOnly: true, sameSite: .strict))
            return .response(response)
        }
        addConsoleOverview(router, console)
        addConsoleSchema(router, console)
        addConsoleRecords(router, console)
        addConsoleZones(router, console)
        addConsolePeople(router, console)
        addConsoleLogs(router, console)
    }

    /// The schema of a container environment, decoded once per commit.
    func consoleSchema(_ container: String, _ environment: Container.Environment) async throws -> Schema {
        let opened = try registry.container(container, environment: environment, user: nil)
        guard let console = webConsole else { return try await opened.schema() }
        return try await console.snapshots.schema(of: opened, identifier: container, environment: environment)
    }

    /// Registers `/console/PATH`: signed-out requests go to the sign-in page (401 for JSON), a
    /// POST without the session's CSRF token is refused (403), and the reply becomes HTML.
    func consoleRoute(_ router: Router<ServerRequestContext>, _ method: HTTPRequest.Method, _ path: String,
                      bodyLimit: Int = CloudServer.maxConsoleFormBytes,
                      _ handler: @escaping @Sendable (ConsoleRequest) async throws -> ConsoleReply) {
        guard let console = webConsole else { return }
        router.on(RouterPath("console/\(path)"), method: method) { request, context in
            let uri = request.uri.description
            guard let token = request.cookies[Self.consoleCookie]?.value,
                  let session = try await console.store.liveSession(token: token, now: console.clock.now) else {
                if path.hasSuffix(".json") { throw ServerError(.authenticationRequired, "Sign in to the console") }
                return Self.consoleRedirect("/console/signin" + ConsoleForm.query([("next", method == .get ? uri : nil)]))
            }
            let csrf = Secret.digest("console-csrf:" + token)
            var form = ConsoleForm()
            var files: [String: ConsoleMultipart.File] = [:]
            if method == .post {
                let bytes = try await self.collectBody(request, limit: bodyLimit)
                if let boundary = ConsoleMultipart.boundary(request.headers[.contentType] ?? "") {
                    // A form with a file (the record editor's assets); anything unparsable has no CSRF token.
                    if let parts = try? ConsoleMultipart(body: bytes, boundary: boundary) {
                        form = parts.form
                        files = parts.files
                    }
                } else {
                    form = ConsoleForm(urlEncoded: bytes)
                }
                guard let sent = form["csrf"], Secret.constantTimeEquals(sent, csrf) else {
                    var response = try self.consoleHTML(console, "message", [
                        "title": "Refused", "heading": "Refused: the form has no valid CSRF token",
                        "text": "Changes are accepted only from the console's own pages. Go back, reload the page and try again.",
                    ], status: .forbidden)
                    Self.lockDown(&response)
                    return response
                }
            }
            let query = ConsoleForm(urlEncoded: Array((request.uri.query ?? "").utf8))
            let consoleRequest = ConsoleRequest(admin: session.admin, csrf: csrf, sessionToken: token, query: query, form: form,
                                                files: files, uri: uri)
            let reply: ConsoleReply
            do {
                reply = try await handler(consoleRequest)
            } catch {
                // Bad input (a wrong container, an unknown user) is a page with the reason, not a JSON error.
                let serverError = ServerError(wrapping: error)
                RequestNote.current?.setErrorCode(serverError.code.rawValue)
                if serverError.code == .internalError { context.logger.error("console: \(String(reflecting: error))") }
                reply = .page(template: "message", title: "Error", section: "", context: [
                    "heading": "That did not work", "text": serverError.reason, "isError": true,
                ])
            }
            switch reply {
            case .redirect(let location): return Self.consoleRedirect(location)
            case .response(var response):
                Self.lockDown(&response)
                return response
            case .page(let template, let title, let section, var values):
                values["title"] = title
                values["admin"] = session.admin
                values["csrf"] = csrf
                let place = try? consoleRequest.place(console)
                values["nav"] = Self.consoleSections.map { entry in
                    ["label": entry.label, "url": "/console/\(entry.path)" + (place?.query(keepDatabase: false) ?? ""),
                     "current": entry.path == section] as [String: Any]
                }
                if let place {
                    values["container"] = place.container
                    values["environment"] = place.environment.rawValue
                    values["isProduction"] = place.environment == .production
                    if let user = place.actingAs {
                        values["actingAs"] = user
                        var stopped = place
                        stopped.actingAs = nil
                        if stopped.scope != .public { stopped.scope = .public }
                        values["stopActingURL"] = "/console/\(section.isEmpty ? "records" : section)" + stopped.query()
                    }
                }
                if values["notice"] == nil, let notice = query.text("notice") { values["notice"] = String(notice.prefix(300)) }
                return try self.consoleHTML(console, template, values)
            }
        }
    }

    /// POST /console/signin: a bcrypt-checked password, throttled per name like the API's sign-in.
    func consoleSignIn(_ request: Request, console: WebConsole) async throws -> Response {
        let bytes = try await collectBody(request, limit: Self.maxSigninBytes)
        let form = ConsoleForm(urlEncoded: bytes)
        let next = Self.safeNext(form["next"])
        let name = form.text("user") ?? ""
        let password = form["password"] ?? ""
        let now = console.clock.now
        // Login CSRF: the form must carry the digest of this browser's sign-in cookie, which another
        // site can neither read nor set, so no page elsewhere can sign the browser in as someone else.
        let cookie = request.cookies[Self.consoleSigninCookie]?.value ?? ""
        let formIsOurs = Self.isSigninNonce(cookie) && form["csrf"].map { Secret.constantTimeEquals($0, Self.signinCSRF(cookie)) } == true
        let pre = Self.isSigninNonce(cookie) ? cookie : Secret.apiToken()
        func refuse(_ message: String, status: HTTPResponse.Status, retryAfter: TimeInterval? = nil) throws -> Response {
            RequestNote.current?.setErrorCode(status == .forbidden ? "CSRF" : status == .tooManyRequests ? "THROTTLED" : "AUTHENTICATION_FAILED")
            var response = try consoleHTML(console, "signin", ["title": "Sign in", "next": next, "user": name, "error": message,
                                                               "csrf": Self.signinCSRF(pre)], status: status)
            if let retryAfter { response.headers[.retryAfter] = String(Int(retryAfter.rounded(.up))) }
            setSigninCookie(&response, pre)
            return response
        }
        guard formIsOurs else {
            return try refuse("The sign-in form has no valid CSRF token: sign in from this page", status: .forbidden)
        }
        if let wait = console.throttle.retryAfter(container: "", user: name, now: now) {
            return try refuse("Too many failed sign-ins for this name: try again in \(Int(wait.rounded(.up))) s",
                              status: .tooManyRequests, retryAfter: wait)
        }
        guard !name.isEmpty, try await console.store.checkAdminPassword(name, password: password, hasher: console.hasher) else {
            console.throttle.recordFailure(container: "", user: name, now: console.clock.now)
            return try refuse("Wrong name or password", status: .unauthorized)
        }
        console.throttle.recordSuccess(container: "", user: name)
        let token = try await console.store.startSession(admin: name, lifetime: console.sessionLifetime, now: console.clock.now)
        try await console.audit(name, "console.signin", "signed in")
        var response = Self.consoleRedirect(next)
        response.setCookie(Cookie(name: Self.consoleCookie, value: token, maxAge: Int(console.sessionLifetime), path: "/console",
                                  secure: configuration.scheme == "https", httpOnly: true, sameSite: .strict))
        return response
    }

    /// A sign-in cookie's value: 64 hex digits, as ``Secret/apiToken()`` makes them.
    static func isSigninNonce(_ value: String) -> Bool { Secret.isHex64(value) }

    /// The sign-in form's CSRF token for a sign-in cookie.
    static func signinCSRF(_ nonce: String) -> String { Secret.digest("console-signin-csrf:" + nonce) }

    func setSigninCookie(_ response: inout Response, _ nonce: String) {
        response.setCookie(Cookie(name: Self.consoleSigninCookie, value: nonce, maxAge: 86_400, path: "/console",
                                  secure: configuration.scheme == "https", httpOnly: true, sameSite: .strict))
    }

    /// Where sign-in may return to: a console page on this server, never another host.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/console/"), !next.hasPrefix("/console/signin"), !next.contains("//"),
              !next.contains("\\"), next.utf8.count < 2048
        else { return "/console/overview" }
        return next
    }

    func consoleHTML(_ console: WebConsole, _ template: String, _ values: [String: Any],
                     status: HTTPResponse.Status = .ok) throws -> Response {
        var response = Response(status: status, headers: [.contentType: "text/html; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: try console.render(template, values))))
        Self.lockDown(&response)
        return response
    }

    static func consoleRedirect(_ location: String) -> Response {
        var response = Response(status: .seeOther, headers: [.location: location])
        lockDown(&response)
        return response
    }

    private static let lockDownHeaders: [(HTTPFields.Element.Name, String)] = [
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
    ].compactMap { name, value in HTTPFields.Element.Name(name).map { ($0, value) } }

    /// The console's headers: only this origin's files, no inline script or style, never framed.
    static func lockDown(_ response: inout Response) {
        response.headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        for (name, value) in lockDownHeaders { response.headers[name] = value }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
    }
}

