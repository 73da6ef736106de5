/// Posts a message from any thread to the UI loop, which applies it on the UI thread.
public struct MessageSink<Message: Sendable>: Sendable {
    private let deliver: @Sendable (Message) -> Void

    public init(_ deliver: @escaping @Sendable (Message) -> Void) { self.deliver = deliver }

    public func post(_ message: Message) { deliver(message) }
}
