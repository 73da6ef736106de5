import Testing
@testable import LocalCloudServer

@Suite("console: the deploy page's line diff")
struct LineDiffTests {
    /// The invariant: kept + removed lines are the old text, kept + added the new one, in order.
    private func check(_ old: String, _ new: String) -> LineDiff {
        let diff = LineDiff(old: old, new: new)
        var before: [String] = [], after: [String] = []
        for change in diff.changes {
            switch change {
            case .kept(let line): before.append(line); after.append(line)
            case .removed(let line): before.append(line)
            case .added(let line): after.append(line)
            }
        }
        #expect(before.joined(separator: "\n") == old)
        #expect(after.joined(separator: "\n") == new)
        return diff
    }

    @Test func addedFieldIsOneAddedLine() {
        let diff = check("TYPE A (\n  name STRING,\n)", "TYPE A (\n  name STRING,\n  rating INT64 SORTABLE,\n)")
        #expect(diff.changes == [.kept("TYPE A ("), .kept("  name STRING,"), .added("  rating INT64 SORTABLE,"), .kept(")")])
        #expect(diff.hasChanges)
    }

    @Test func sameTextHasNoChanges() {
        #expect(!check("a\nb\nc", "a\nb\nc").hasChanges)
    }

    @Test func changedLineIsRemovedThenAdded() {
        let diff = check("a\nname STRING QUERYABLE\nc", "a\nname STRING\nc")
        #expect(diff.changes == [.kept("a"), .added("name STRING"), .removed("name STRING QUERYABLE"), .kept("c")]
                || diff.changes == [.kept("a"), .removed("name STRING QUERYABLE"), .added("name STRING"), .kept("c")])
    }

    @Test func randomTextsKeepTheInvariant() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let lines = ["a", "b", "c", "d"]
            let old = (0..<Int.random(in: 0...8, using: &generator)).map { _ in lines.randomElement(using: &generator) ?? "a" }
            let new = (0..<Int.random(in: 0...8, using: &generator)).map { _ in lines.randomElement(using: &generator) ?? "a" }
            _ = check(old.joined(separator: "\n"), new.joined(separator: "\n"))
        }
    }
}
