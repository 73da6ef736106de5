import Foundation
import FoodPinCore

extension LinkOpener {
    /// `xdg-open URL` (or macOS's `open URL`), found on `PATH`, started with its output and
    /// input on /dev/null so it never draws over the screen; no waiting for the browser.
    static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> LinkOpener {
        guard let program = ["xdg-open", "open"].lazy.compactMap({ findExecutable($0, environment: environment) }).first else {
            return .unavailable
        }
        return LinkOpener { target in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = [target]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                return true
            } catch {
                return false
            }
        }
    }

    /// The first executable `name` in `PATH`'s directories.
    static func findExecutable(_ name: String, environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return String(path) }
        }
        return nil
    }
}

/// Whether the terminal can be sent OSC 8 links: terminals that understand them show links, most
/// others ignore the sequence, but the Linux console and old DEC-style terminals print it.
func terminalShowsLinks(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    let term = environment["TERM"] ?? ""
    let printsOSC = ["dumb", "linux", "cons25", "ansi"].contains(term) || term.hasPrefix("vt") || term.isEmpty
    return !printsOSC
}
