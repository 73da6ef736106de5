/// How many colours the terminal shows; chosen from `--color`, `NO_COLOR` and the terminal.
package enum ColorMode: String, Hashable, Sendable, CaseIterable {
    case colors256 = "256"
    case colors16 = "16"
    case colors8 = "8"
    case none
}
