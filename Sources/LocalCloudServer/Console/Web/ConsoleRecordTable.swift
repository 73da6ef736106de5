/// The records page's repeated parts as HTML: the result rows and the builder's option lists.
/// They are most of that page's values, and Mustache looks each one up through its context
/// stack; written here, every value still goes through ``ConsoleHTML/escape(_:)``, the escaping
/// the templates use, and the template inserts the result with `{{{…}}}`.
enum ConsoleRecordTable {
    struct Row {
        var name: String
        var url: String
        var cells: [String]
        var modified: String
    }

    /// `<tr>` rows: a link to the record, its shown fields, its modification time.
    static func rows(_ rows: [Row]) -> String {
        var html = ""
        html.reserveCapacity(rows.count * 256)
        for row in rows {
            html += "<tr><td><a href=\"" + ConsoleHTML.escape(row.url) + "\" class=\"record-link\">" + ConsoleHTML.escape(row.name) + "</a></td>"
            for cell in row.cells { html += "<td>" + ConsoleHTML.escape(cell) + "</td>" }
            html += "<td>" + ConsoleHTML.escape(row.modified) + "</td></tr>"
        }
        return html
    }

    /// `<option>`s of `names`, `selected` marked.
    static func options(_ names: [String], selected: String?) -> String {
        var html = ""
        for name in names {
            html += name == selected ? "<option selected>" : "<option>"
            html += ConsoleHTML.escape(name) + "</option>"
        }
        return html
    }
}
