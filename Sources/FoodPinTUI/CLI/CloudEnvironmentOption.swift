import ArgumentParser

/// The `--environment` option: which LocalCloud environment the container opens.
enum CloudEnvironmentOption: String, CaseIterable, ExpressibleByArgument, Sendable {
    case development
    case production
}
