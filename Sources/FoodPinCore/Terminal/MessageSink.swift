/// Posts a message from any thread to the UI loop, which applies it on the UI thread.
package struct MessageSink<Message: Sendable>: Sendable {
    private let deliver: @Sendable (Message) -> Void

    package init(_ deliver: @escaping @Sendable (Message) -> Void) { self.deliver = deliver }

    package func post(_ message: Message) { deliver(message) }
}
