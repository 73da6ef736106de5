import LocalCloud
import Testing

@Suite struct ServerSentEventParserTests {
    @Test func eventsSurviveAnyChunking() {
        let stream = "retry: 1000\n: connected\n\nid: 7-1\ndata: {\"a\":1}\n\n: heartbeat\n\nevent: reset\r\ndata: one\r\ndata: two\r\n\r\n"
        let whole: [ServerSentEvent] = {
            var parser = ServerSentEventParser()
            return parser.feed(Array(stream.utf8))
        }()
        #expect(whole == [
            ServerSentEvent(id: "7-1", data: "{\"a\":1}"),
            ServerSentEvent(id: "7-1", type: "reset", data: "one\ntwo"),
        ])
        // Byte by byte gives the same events (a CRLF split between chunks included).
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in stream.utf8 { events += parser.feed([byte]) }
        #expect(events == whole)
    }

    @Test func anEventWithoutDataIsNotDispatched() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("id: 3\n\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: x\n\n".utf8)) == [ServerSentEvent(id: "3", data: "x")])
    }
}
