import Foundation

/// A cheap check that a path is a readable image: it exists, is a regular file, is not empty
/// and starts with a known image signature. It reads at most 16 bytes.
enum ImageProbe {
    static func problem(with path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "No such file" }
        if isDirectory.boolValue { return "That is a directory" }
        guard FileManager.default.isReadableFile(atPath: path), let handle = FileHandle(forReadingAtPath: path) else {
            return "The file is not readable"
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return "The file is empty" }
        return isImageSignature([UInt8](header)) ? nil : "Not an image file"
    }

    static func isImageSignature(_ bytes: [UInt8]) -> Bool {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        return starts([0xFF, 0xD8, 0xFF]) // JPEG
            || starts([0x89, 0x50, 0x4E, 0x47]) // PNG
            || starts(Array("GIF8".utf8))
            || (starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8))
            || starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) // TIFF
            || starts(Array("ftyp".utf8), at: 4) // HEIC/AVIF
            || starts(Array("BM".utf8))
    }
}
