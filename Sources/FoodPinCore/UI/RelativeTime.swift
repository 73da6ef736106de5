import Foundation

/// "5 min ago"-style ages, measured from an injected `now` so views stay pure and testable.
enum RelativeTime {
    static func describe(_ date: Date, now: Date) -> String {
        let seconds = Int(now.timeIntervalSince(date))
        switch seconds {
        case ..<45: return "just now"
        case ..<90: return "1 min ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<7200: return "1 hour ago"
        case ..<86400: return "\(seconds / 3600) hours ago"
        case ..<172_800: return "yesterday"
        case ..<2_592_000: return "\(seconds / 86400) days ago"
        default: return "on " + day(date)
        }
    }

    /// A calendar day in UTC, e.g. "2026-01-03", independent of the machine's locale.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let year = parts.year ?? 0, month = parts.month ?? 0, day = parts.day ?? 0
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }
}
