import ArgumentParser
import FoodPinCore

/// The `--color` option: `auto` decides from `NO_COLOR` and the terminal.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto
    case colors256 = "256"
    case colors16 = "16"
    case colors8 = "8"
    case none

    /// The explicitly requested mode, or `nil` for `auto`.
    var mode: ColorMode? {
        switch self {
        case .auto: nil
        case .colors256: .colors256
        case .colors16: .colors16
        case .colors8: .colors8
        case .none: ColorMode.none
        }
    }
}
