/// A broken internal invariant, found by a data structure's self-check.
struct InvariantViolation: Error, CustomStringConvertible {
    let description: String
}
