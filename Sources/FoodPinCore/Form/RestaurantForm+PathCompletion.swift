extension RestaurantForm {
    /// Expands a leading `~` to the home directory, as a shell would.
    package func expandTilde(_ path: String) -> String {
        if path == "~" { return homeDirectory }
        if path.hasPrefix("~/") {
            let home = homeDirectory.hasSuffix("/") ? String(homeDirectory.dropLast()) : homeDirectory
            return home + path.dropFirst()
        }
        return path
    }

    enum CompletionStart {
        /// The directory must be listed first; the form holds further keys until it is.
        case list(String)
        /// Completed without a listing (`~` → `~/`).
        case done
        /// Nothing to complete: Tab moves on.
        case nothing
    }

    /// Tab on the image field: asks for the directory of the typed path, or completes `~` at once.
    mutating func startCompletion() -> CompletionStart {
        guard var editor = editors[.image], editor.cursor == editor.characters.count else { return .nothing }
        let typed = editor.text
        guard !typed.isEmpty else { return .nothing }
        if typed == "~" {
            editor.setText("~/")
            editors[.image] = editor
            return .done
        }
        let slash = typed.lastIndex(of: "/")
        let directoryPart = slash.map { String(typed[...$0]) } ?? ""
        let directory = directoryPart.isEmpty ? "." : expandTilde(directoryPart)
        pendingCompletion = (directory, typed)
        return .list(directory)
    }

    /// The listing for a Tab completion arrived: completes the path as far as it is unambiguous,
    /// or lists the candidates; with nothing to complete, Tab moves on to the next field.
    ///
    /// Returns the keys typed while the listing was on its way, for the caller to apply in order.
    /// An answer for another directory is ignored.
    package mutating func directoryListed(_ directory: String, entries: [FormServices.DirectoryEntry]?) -> [Key] {
        guard let pending = pendingCompletion, pending.directory == directory else { return [] }
        pendingCompletion = nil
        defer { queuedKeys = [] }
        if !complete(pending.text, entries: entries ?? []) { moveFocus(by: 1) }
        return queuedKeys
    }

    private mutating func complete(_ typed: String, entries: [FormServices.DirectoryEntry]) -> Bool {
        guard var editor = editors[.image] else { return false }
        let slash = typed.lastIndex(of: "/")
        let directoryPart = slash.map { String(typed[...$0]) } ?? ""
        let prefix = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        let showHidden = prefix.hasPrefix(".")
        let matches = entries
            .filter { $0.name.hasPrefix(prefix) && (showHidden || !$0.name.hasPrefix(".")) }
            .sorted { $0.name < $1.name }
        guard let first = matches.first else { return false }
        if matches.count == 1 {
            editor.setText(directoryPart + first.name + (first.isDirectory ? "/" : ""))
            editors[.image] = editor
            completions = []
            errors[.image] = nil
            return true
        }
        let common = matches.dropFirst().reduce(first.name) { Self.commonPrefix($0, $1.name) }
        if common.count > prefix.count {
            editor.setText(directoryPart + common)
            editors[.image] = editor
            completions = []
            return true
        }
        if completions.isEmpty {
            completions = matches.map { $0.name + ($0.isDirectory ? "/" : "") }
            return true
        }
        return false // a second Tab with the list already shown moves on
    }

    static func commonPrefix(_ a: String, _ b: String) -> String {
        String(zip(a, b).prefix { $0 == $1 }.map(\.0))
    }
}
