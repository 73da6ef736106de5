/// Where the next page of a query starts: an opaque token the effect handler made.
///
/// The UI never looks inside; it only hands the cursor back in ``Effect/loadNextPage(_:limit:)``.
/// Two cursors are equal only if they are the same cursor, so effects stay comparable in tests.
package struct PageCursor: Hashable, Sendable, CustomStringConvertible {
    private final class Box: Sendable {
        let token: any Sendable
        init(_ token: any Sendable) { self.token = token }
    }

    private let box: Box

    package init(_ token: any Sendable) { box = Box(token) }

    /// The handler's own value, e.g. a LocalCloud `Query.Cursor`.
    package var token: any Sendable { box.token }

    package static func == (lhs: PageCursor, rhs: PageCursor) -> Bool { lhs.box === rhs.box }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
    package var description: String { "PageCursor(\(box.token))" }
}
