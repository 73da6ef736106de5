/// Where the next page of a query starts: an opaque token the effect handler made.
///
/// The UI never looks inside; it only hands the cursor back in ``Effect/loadNextPage(_:limit:)``.
/// Two cursors are equal only if they are the same cursor, so effects stay comparable in tests.
public struct PageCursor: Hashable, Sendable, CustomStringConvertible {
    private final class Box: Sendable {
        let token: any Sendable
        init(_ token: any Sendable) { self.token = token }
    }

    private let box: Box

    public init(_ token: any Sendable) { box = Box(token) }

    /// The handler's own value, e.g. a LocalCloud `Query.Cursor`.
    public var token: any Sendable { box.token }

    public static func == (lhs: PageCursor, rhs: PageCursor) -> Bool { lhs.box === rhs.box }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
    public var description: String { "PageCursor(\(box.token))" }
}
