import Foundation

/// A person who may sign in to the web console (`localcloud admins add`).
package struct ConsoleAdmin: Sendable, Hashable {
    package var name: String
    package var created: Date

    package init(name: String, created: Date) {
        self.name = name
        self.created = created
    }
}
