extension RestaurantForm {
    /// Expands a leading `~` to the home directory, as a shell would.
    public func expandTilde(_ path: String) -> String {
        if path == "~" { return services.homeDirectory }
        if path.hasPrefix("~/") {
            let home = services.homeDirectory.hasSuffix("/") ? String(services.homeDirectory.dropLast()) : services.homeDirectory
            return home + path.dropFirst()
        }
        return path
    }

    /// Tab on the image field: completes the path as far as it is unambiguous, or lists the candidates.
    ///
    /// Returns `false` when there is nothing to complete, so Tab moves on to the next field.
    mutating func completePath() -> Bool {
        guard var editor = editors[.image], editor.cursor == editor.characters.count else { return false }
        let typed = editor.text
        guard !typed.isEmpty else { return false }
        if typed == "~" {
            editor.setText("~/")
            editors[.image] = editor
            return true
        }
        let slash = typed.lastIndex(of: "/")
        let directoryPart = slash.map { String(typed[...$0]) } ?? ""
        let prefix = slash.map { String(typed[typed.index(after: $0)...]) } ?? typed
        let directory = directoryPart.isEmpty ? "." : expandTilde(directoryPart)
        let showHidden = prefix.hasPrefix(".")
        let matches = (services.listDirectory(directory) ?? [])
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
