import Foundation
import Hummingbird
import LocalCloud

/// One signed-in console request: who, their CSRF token, the address's fields and the form's.
struct ConsoleRequest: Sendable {
    var admin: String
    var csrf: String
    /// The cookie's secret, to end the session on sign-out.
    var sessionToken: String
    var query: ConsoleForm
    /// The POSTed form; empty on GET.
    var form: ConsoleForm
    /// The files of a `multipart/form-data` POST, by field name.
    var files: [String: ConsoleMultipart.File] = [:]
    /// The path and query as requested, for the sign-in page to come back to.
    var uri: String

    /// The place from the form on POST, from the address on GET.
    func place(_ console: WebConsole) throws -> ConsolePlace {
        try ConsolePlace(form.fields.isEmpty ? query : form, defaultContainer: console.defaultContainer)
    }
}
