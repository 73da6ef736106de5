import Foundation

extension AppState {
    /// How far off this machine's clock may be before the status line says so.
    static let clockTolerance: TimeInterval = 120

    /// "clock 5 h ahead" when this machine's clock is off from the server's by more than
    /// ``clockTolerance`` (times on screen then use the server's); `nil` otherwise.
    ///
    /// ```swift
    /// state.clockOffset = -18_000   // the server reads 5 h earlier
    /// state.clockNote               // "clock 5 h ahead"
    /// ```
    package var clockNote: String? {
        guard let offset = clockOffset, abs(offset) >= Self.clockTolerance else { return nil }
        let seconds = Int(abs(offset).rounded())
        let amount = seconds >= 5400 ? "\((seconds + 1800) / 3600) h" : seconds >= 90 ? "\((seconds + 30) / 60) min" : "\(seconds) s"
        // The offset is the server's clock minus this one: negative means this one is ahead.
        return "clock \(amount) " + (offset < 0 ? "ahead" : "behind")
    }
}
