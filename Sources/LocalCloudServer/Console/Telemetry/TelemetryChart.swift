import Foundation

/// A line chart of the last hour as an SVG document: one polyline per series over 60 minutes,
/// a y-axis labelled with its maximum, and a legend. Labels are escaped: they are text.
struct TelemetryChart: Sendable {
    struct Series: Sendable {
        var label: String
        var color: String
        var values: [Double]
    }

    var title: String
    var unit: String
    var series: [Series]

    static let palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4b5563"]
    static let width = 640.0, height = 220.0
    static let left = 56.0, right = 12.0, top = 28.0, bottom = 36.0

    var svg: String {
        let plotWidth = Self.width - Self.left - Self.right, plotHeight = Self.height - Self.top - Self.bottom
        let peak = series.flatMap(\.values).max() ?? 0
        let scale = Self.niceCeiling(peak)
        let height = Int(Self.height) + max(0, (series.count - 1) / 3) * 14
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(height)" \
            viewBox="0 0 \(Int(Self.width)) \(height)" font-family="sans-serif" font-size="11">
            <title>\(Self.escape(title))</title>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="\(Self.left)" y="16" font-size="13" font-weight="bold" fill="#111827">\(Self.escape(title))</text>

            """
        for step in 0...4 {
            let y = Self.top + plotHeight * (1 - Double(step) / 4)
            let value = scale * Double(step) / 4
            out += "<line x1=\"\(Self.left)\" y1=\"\(Self.fmt(y))\" x2=\"\(Self.left + plotWidth)\" y2=\"\(Self.fmt(y))\" stroke=\"#e5e7eb\"/>\n"
            out += "<text x=\"\(Self.left - 6)\" y=\"\(Self.fmt(y + 4))\" text-anchor=\"end\" fill=\"#4b5563\">\(Self.escape(Self.label(value, unit: unit)))</text>\n"
        }
        for (minutesAgo, x) in [(60, 0.0), (45, 0.25), (30, 0.5), (15, 0.75), (0, 1.0)] {
            let px = Self.left + plotWidth * x
            out += "<text x=\"\(Self.fmt(px))\" y=\"\(Self.fmt(Self.top + plotHeight + 14))\" text-anchor=\"middle\" fill=\"#4b5563\">\(minutesAgo == 0 ? "now" : "-\(minutesAgo) min")</text>\n"
        }
        for (index, line) in series.enumerated() {
            let count = max(line.values.count - 1, 1)
            let points = line.values.enumerated().map { i, value in
                "\(Self.fmt(Self.left + plotWidth * Double(i) / Double(count))),\(Self.fmt(Self.top + plotHeight * (1 - (scale > 0 ? value / scale : 0))))"
            }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\" points=\"\(points)\"><title>\(Self.escape(line.label))</title></polyline>\n"
            // Three legend entries a row, rows below the plot (the SVG grows to fit them).
            let lx = Self.left + Double(index % 3) * 190, ly = Self.height - 6 + Double(index / 3) * 14
            out += "<rect x=\"\(Self.fmt(lx))\" y=\"\(Self.fmt(ly - 9))\" width=\"10\" height=\"10\" fill=\"\(line.color)\"/>"
            out += "<text x=\"\(Self.fmt(lx + 14))\" y=\"\(Self.fmt(ly))\" fill=\"#111827\">\(Self.escape(line.label))</text>\n"
        }
        if series.isEmpty || peak == 0 {
            out += "<text x=\"\(Self.fmt(Self.left + plotWidth / 2))\" y=\"\(Self.fmt(Self.top + plotHeight / 2))\" text-anchor=\"middle\" fill=\"#6b7280\">none in the last hour</text>\n"
        }
        return out + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten at or above `value` (1 for nothing).
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func label(_ value: Double, unit: String) -> String {
        let number = value >= 10 || value == 0 ? String(Int(value.rounded())) : String(format: "%.2g", value)
        return unit.isEmpty ? number : "\(number) \(unit)"
    }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
