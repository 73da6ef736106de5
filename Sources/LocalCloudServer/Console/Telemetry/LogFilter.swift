/// The log page's filters: status (`404`, `4xx`), a path fragment, a user.
struct LogFilter: Sendable {
    var status: String?
    var path: String?
    var user: String?

    init(_ form: ConsoleForm) {
        status = form.text("status")
        path = form.text("path")
        user = form.text("user")
    }

    func matches(_ line: RequestJournal.Line) -> Bool {
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
