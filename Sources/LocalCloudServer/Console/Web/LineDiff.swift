/// A line diff (longest common subsequence) of two texts, for the deploy page's
/// development → production comparison.
///
/// Invariant: the kept and removed lines, in order, are `old`; the kept and added lines are `new`.
struct LineDiff: Sendable, Equatable {
    enum Change: Sendable, Equatable {
        case kept(String)
        case added(String)
        case removed(String)
    }

    var changes: [Change]

    init(old: String, new: String) {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // lengths[i][j]: the LCS of a[i...] and b[j...].
        var lengths = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var changes: [Change] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                changes.append(.kept(a[i])); i += 1; j += 1
            } else if j < b.count, i == a.count || lengths[i][j + 1] >= lengths[i + 1][j] {
                changes.append(.added(b[j])); j += 1
            } else {
                changes.append(.removed(a[i])); i += 1
            }
        }
        self.changes = changes
    }

    var hasChanges: Bool {
        changes.contains { if case .kept = $0 { false } else { true } }
    }
}
