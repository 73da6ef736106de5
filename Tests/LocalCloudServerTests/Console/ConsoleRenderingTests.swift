import Foundation
import LocalCloud
import Logging
import Testing
@testable import LocalCloudServer

/// Record text is hostile: every template escapes it, and the SVG charts escape their labels.
@Suite("console: templates and charts")
struct ConsoleRenderingTests {
    static let hostile = "<img src=x onerror=alert(1)></script>\"'&"

    @Test func everyTemplateParses() throws {
        let library = try WebConsole.library()
        for (name, _) in ConsoleResources.templates {
            #expect(library.getTemplate(named: name) != nil, "template \(name)")
        }
    }

    @Test func recordTextIsEscapedEverywhere() throws {
        let console = WebConsole(store: SQLiteConsoleStore(dataDirectory: URL(fileURLWithPath: "/nonexistent")),
                                 journal: RequestJournal(), logger: Logger(label: "test"), hasher: PasswordHasher(cost: 4), sessionLifetime: 60,
                                 defaultContainer: "iCloud.Test")
        let html = try console.render("records", [
            "title": Self.hostile, "admin": "root", "csrf": "x", "container": Self.hostile, "notice": Self.hostile,
            "hasRows": true, "columns": [Self.hostile],
            "rowsHTML": ConsoleRecordTable.rows([.init(name: Self.hostile, url: "/console/record?name=" + Self.hostile,
                                                       cells: [Self.hostile], modified: Self.hostile)]),
            "filterOptions": ConsoleRecordTable.options(["", Self.hostile], selected: Self.hostile),
        ])
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("</script>\""))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;"))
        #expect(html.contains("<option selected>&lt;img src=x"))
        #expect(html.contains("class=\"record-link\">&lt;img src=x"))
    }

    @Test func chartLabelsAreEscapedAndScaled() {
        let chart = TelemetryChart(title: "Errors", unit: "", series: [
            .init(label: Self.hostile, color: "#000000", values: [0, 3, 7]),
        ])
        #expect(!chart.svg.contains("<img"))
        #expect(chart.svg.contains("&lt;img"))
        #expect(chart.svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(TelemetryChart.niceCeiling(7) == 10)
        #expect(TelemetryChart.niceCeiling(0.3) == 0.5)
        #expect(TelemetryChart.niceCeiling(0) == 1)
    }

    @Test func formParsingAndSafeRedirects() {
        let form = ConsoleForm(urlEncoded: Array("a=1+2&b=%3Cx%3E&a=ignored&empty=&f.name=Z".utf8))
        #expect(form["a"] == "1 2")
        #expect(form["b"] == "<x>")
        #expect(form.text("empty") == nil)
        #expect(form.prefixed("f.") == ["name": "Z"])
        #expect(CloudServer.safeNext("/console/records?c=x") == "/console/records?c=x")
        #expect(CloudServer.safeNext("https://evil.example/") == "/console/overview")
        #expect(CloudServer.safeNext("/console//evil.example") == "/console/overview")
        #expect(CloudServer.safeNext("/console/signin") == "/console/overview")
    }

    @Test func valuesBecomeTheAPIsJSON() throws {
        #expect(try ConsoleValue.json("42", type: .int64, field: "n") == .object(["value": .int(42), "type": .string("INT64")]))
        #expect(throws: CloudError.self) { try ConsoleValue.json("4x", type: .int64, field: "n") }
        #expect(try ConsoleValue.json("a\nb\n", type: .list(.string), field: "tags")
                == .object(["value": .array([.string("a"), .string("b")]), "type": .string("STRING_LIST")]))
        #expect(try ConsoleValue.json("2026-01-31T12:00:00Z", type: .timestamp, field: "t")
                == .object(["value": .int(1_769_860_800_000), "type": .string("TIMESTAMP")]))
    }

    @Test func consoleEscapingMatchesMustacheHTML() {
        #expect(ConsoleHTML.escape(#"<img src=x onerror="alert('1')"> & é漢字🍜"#)
            == "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; é漢字🍜")
        #expect(ConsoleHTML.escape("plain text, ünïcode") == "plain text, ünïcode")
        #expect(ConsoleHTML.escape("") == "")
    }

    @Test func percentEncodingKeepsOnlyUnreservedCharacters() {
        for text in ["iCloud.FoodPin", "a b&c=d/e?f#g", "é漢字🍜", "<img src=x>", "~-._", ""] {
            let encoded = ConsoleForm.encode(text)
            let allowed = Set("%-._~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
            #expect(encoded.utf8.allSatisfy { allowed.contains($0) })
            #expect(encoded.removingPercentEncoding == text)
        }
        #expect(ConsoleForm.encode("a b") == "a%20b")
        #expect(ConsoleForm.query([("c", "x y"), ("empty", ""), ("n", nil)]) == "?c=x%20y")
    }
}
