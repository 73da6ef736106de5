/// The log page's filters: status (`404`, `4xx`), a path fragment, a user.
package struct LogFilter: Sendable {
    package var status: String?
    package var path: String?
    package var user: String?

    init(_ form: ConsoleForm) {
        status = form.text("status")
        path = form.text("path")
        user = form.text("user")
    }

    /// The status filter as a range of codes: `404` is 404...404, `4xx` is 400...499; `nil` for none,
    /// an empty range for text that is neither (which matches nothing).
    package var statusRange: ClosedRange<Int>?? {
        guard let status else { return .none }
        if status.count == 3, status.hasSuffix("xx"), let digit = status.first?.wholeNumberValue { return (digit * 100)...(digit * 100 + 99) }
        if let code = Int(status) { return code...code }
        return .some(nil)
    }

    package func matches(_ line: RequestJournal.Line) -> Bool {
        if let status {
            let code = String(line.status)
            if status.count == 3, status.hasSuffix("xx") {
                guard code.first == status.first else { return false }
            } else if code != status {
                return false
            }
        }
        if let path, !line.path.contains(path) { return false }
        if let user, line.user != user { return false }
        return true
    }
}
