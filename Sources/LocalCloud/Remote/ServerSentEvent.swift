/// One event of a `text/event-stream`, as the HTML living standard defines them.
package struct ServerSentEvent: Sendable, Equatable {
    /// The `id` field, or `nil` when the event had none.
    package var id: String?
    /// The `event` field; "message" when absent.
    package var type: String
    /// The `data` lines, joined with newlines.
    package var data: String

    package init(id: String?, type: String = "message", data: String) {
        self.id = id
        self.type = type
        self.data = data
    }
}

/// Splits a server-sent event stream into events, chunk by chunk, whatever the chunk boundaries.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for event in parser.feed(Array("id: 7\ndata: {}\n\n".utf8)) { … }
/// ```
///
/// Comment lines (`: heartbeat`) and `retry:` are consumed without producing events; an event
/// without data is not dispatched, as the standard says.
package struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var afterCarriageReturn = false
    private var id: String?
    private var type: String?
    private var data: [String] = []

    package init() {}

    /// The events the bytes complete.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if byte == 0x0A && afterCarriageReturn {
                afterCarriageReturn = false
                continue
            }
            afterCarriageReturn = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if let event = endLine() { events.append(event) }
            } else {
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            defer {
                data.removeAll()
                type = nil
            }
            guard !data.isEmpty else { return nil }
            return ServerSentEvent(id: id, type: type ?? "message", data: data.joined(separator: "\n"))
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data": data.append(String(value))
        case "id" where !value.contains("\0"): id = String(value)
        case "event": type = String(value)
        default: break
        }
        return nil
    }
}
