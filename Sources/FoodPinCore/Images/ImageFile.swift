import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks a path before any decoder sees it: cheap `stat`/`open` tests that turn
/// directories, FIFOs, missing files, empty and oversized files into typed errors.
enum ImageFile {
    /// Returns the file's size in bytes, or throws why it cannot be an image.
    static func check(_ url: URL, maxBytes: Int) throws(ImageError) -> Int {
        let path = url.path
        let name = url.lastPathComponent
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            throw ImageError(.unreadable, "Cannot read \(name): \(reason).", path: path)
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            throw ImageError(.isDirectory, "\(name) is a directory, not an image.", path: path)
        }
        guard type == S_IFREG else {
            // FIFOs and devices would block or never end; only regular files are images.
            throw ImageError(.unreadable, "\(name) is not a regular file.", path: path)
        }
        let size = Int(info.st_size)
        if size == 0 {
            throw ImageError(.empty, "\(name) is empty.", path: path)
        }
        if size > maxBytes {
            throw ImageError(
                .tooLarge, "\(name) is \(megabytes(size)), over the \(megabytes(maxBytes)) limit.", path: path)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw ImageError(.unreadable, "Cannot read \(name): \(reason).", path: path)
        }
        close(fd)
        return size
    }

    static func megabytes(_ bytes: Int) -> String {
        let value = Double(bytes) / 1_048_576
        return value >= 10 ? "\(Int(value.rounded())) MB" : String(format: "%.1f MB", value)
    }
}
