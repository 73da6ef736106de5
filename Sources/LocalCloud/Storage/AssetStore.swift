import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The container's content-addressed asset files: `<root>/ab/abcdef…` named by SHA-256.
///
/// Files are written to a temporary name, fsynced and renamed before the database commit
/// that references them, so a committed record never points at a missing file. A crash
/// between the rename and the commit leaves an orphan, which garbage collection removes later.
struct AssetStore: Sendable {
    let root: URL
    let sizeLimit: Int64

    func url(forDigest digest: String) -> URL {
        root.appendingPathComponent(String(digest.prefix(2)), isDirectory: true).appendingPathComponent(digest)
    }

    /// Copies `source` into the store and returns its digest and size.
    /// - Throws: `assetFileNotFound` when the source is missing, `limitExceeded` over the size cap.
    func importFile(_ source: URL) throws -> (digest: String, size: Int64) {
        guard let input = FileHandle(forReadingAtPath: source.path) else {
            throw CloudError(.assetFileNotFound, "Asset file not found: \(source.path)")
        }
        defer { try? input.close() }
        let tempDirectory = root.appendingPathComponent("tmp", isDirectory: true)
        try createDirectory(tempDirectory)
        let temp = tempDirectory.appendingPathComponent("\(UUID().uuidString).part")
        guard FileManager.default.createFile(atPath: temp.path, contents: nil),
              let output = FileHandle(forWritingAtPath: temp.path) else {
            throw CloudError(.internalError, "Cannot write to the asset store at \(root.path)")
        }
        var hasher = SHA256Hasher()
        var size: Int64 = 0
        do {
            defer { try? output.close() }
            while true {
                let chunk = try input.read(upToCount: 1 << 20) ?? Data()
                if chunk.isEmpty { break }
                size += Int64(chunk.count)
                if size > sizeLimit {
                    throw CloudError(.limitExceeded, "Asset \(source.lastPathComponent) exceeds the asset size limit of \(sizeLimit) bytes")
                }
                hasher.update(chunk)
                try output.write(contentsOf: chunk)
            }
            try output.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temp)
            if let cloud = error as? CloudError { throw cloud }
            if CloudError.isOutOfSpace(error) { throw CloudError.diskFull(writing: "an asset (\(size) bytes copied)", cause: error) }
            throw CloudError(.internalError, "Cannot copy asset \(source.path): \(error)", cause: error)
        }
        let digest = Hex.encode(hasher.finalize())
        let final = url(forDigest: digest)
        try createDirectory(final.deletingLastPathComponent())
        // Always rename, even over an identical file: the fresh modification time tells garbage
        // collection that a save is about to reference this content.
        if rename(temp.path, final.path) != 0 {
            try? FileManager.default.removeItem(at: temp)
            throw CloudError(.internalError, "Cannot move asset into place at \(final.path)")
        }
        syncDirectory(final.deletingLastPathComponent())
        return (digest, size)
    }

    private func createDirectory(_ url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CloudError(.internalError, "Cannot create \(url.path): \(error)")
        }
    }

    /// Makes the rename durable before the commit that references the file.
    private func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }
}
