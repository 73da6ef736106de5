import Foundation

/// The outside world the form needs, injected so tests control it: the home directory for `~`,
/// a directory lister for Tab completion, and a probe that says whether a path is a readable image.
package struct FormServices: Sendable {
    package struct DirectoryEntry: Hashable, Sendable {
        package var name: String
        package var isDirectory: Bool
        package init(name: String, isDirectory: Bool) {
            self.name = name
            self.isDirectory = isDirectory
        }
    }

    package var homeDirectory: String
    /// Lists a directory's entries, or `nil` if it cannot be read.
    package var listDirectory: @Sendable (_ path: String) -> [DirectoryEntry]?
    /// Returns why `path` is not a readable image, or `nil` if it is one.
    package var probeImage: @Sendable (_ path: String) -> String?

    package init(
        homeDirectory: String,
        listDirectory: @escaping @Sendable (String) -> [DirectoryEntry]?,
        probeImage: @escaping @Sendable (String) -> String?
    ) {
        self.homeDirectory = homeDirectory
        self.listDirectory = listDirectory
        self.probeImage = probeImage
    }

    /// The real file system; the probe checks that the file is readable and starts like an image.
    /// Full decoding happens later, off the UI thread, in the save.
    package static var live: FormServices {
        FormServices(
            homeDirectory: ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory(),
            listDirectory: { path in
                let url = URL(fileURLWithPath: path, isDirectory: true)
                guard let urls = try? FileManager.default.contentsOfDirectory(
                    at: url, includingPropertiesForKeys: [.isDirectoryKey], options: []) else { return nil }
                return urls.map { url in
                    let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
                    return DirectoryEntry(name: url.lastPathComponent, isDirectory: isDirectory == true)
                }
            },
            probeImage: ImageProbe.problem(with:)
        )
    }
}
