import CVipsShim
import Foundation

/// What an image file is, read from its header without decoding pixels.
///
/// The add form calls this as the user types a path, to show whether it is usable:
/// ```swift
/// let info = try ImageInfo.probe(URL(fileURLWithPath: path))
/// status = "\(info.format) \(info.width)×\(info.height)"
/// ```
package struct ImageInfo: Hashable, Sendable {
    /// Width as the image will be shown, after EXIF orientation.
    package var width: Int
    /// Height as the image will be shown, after EXIF orientation.
    package var height: Int
    /// Width and height as stored, before orientation.
    package var storedWidth: Int
    package var storedHeight: Int
    /// Bands per pixel (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA or CMYK…).
    package var bands: Int
    package var hasAlpha: Bool
    /// EXIF orientation, 1...8 (1 when absent).
    package var orientation: Int
    /// Frames in an animation or pages in a document; only the first is used.
    package var pages: Int
    /// The decoder that recognised it: "jpeg", "png", "webp", "gif", "tiff", "heif"…
    package var format: String
    /// libvips' name for the colour space, e.g. "srgb", "cmyk", "b-w", "rgb16".
    package var colorSpace: String
    /// libvips' name for the sample format, e.g. "uchar", "ushort".
    package var sampleFormat: String
    /// The file's size in bytes (0 when probed from memory).
    package var byteCount: Int

    package var pixelCount: Int { storedWidth * storedHeight }

    /// Reads the header of the file at `url` and applies the same limits as ``ImageScaler``.
    ///
    /// - Throws: ``ImageError`` with `.unreadable`, `.isDirectory`, `.empty`, `.tooLarge`,
    ///   `.notAnImage`, `.corrupt` or `.tooManyPixels`. Never decodes pixels, so it is fast
    ///   even for a decompression bomb.
    package static func probe(
        _ url: URL, maxFileBytes: Int = ImageScaler.defaultMaxFileBytes, maxPixels: Int = ImageScaler.defaultMaxPixels
    ) throws(ImageError) -> ImageInfo {
        try Vips.start()
        let size = try ImageFile.check(url, maxBytes: maxFileBytes)
        let path = url.path
        let name = url.lastPathComponent
        // One open and one loader search for both questions: is it an image, and what does its header say.
        var header = CVipsHeader()
        switch cvips_probe_file(path, &header) {
        case 0:
            break
        case -2:
            Vips.takeError()
            throw ImageError(.notAnImage, "\(name) is not an image libvips can read.", path: path)
        default:
            throw ImageError(.corrupt, "\(name) is truncated or corrupt.", path: path, detail: Vips.takeError())
        }
        let info = ImageInfo(header, byteCount: size)
        try info.checkLimits(maxPixels: maxPixels, name: name, path: path)
        return info
    }

    /// Reads the header of encoded bytes (an asset already in memory).
    package static func probe(
        data: Data, maxFileBytes: Int = ImageScaler.defaultMaxFileBytes, maxPixels: Int = ImageScaler.defaultMaxPixels
    ) throws(ImageError) -> ImageInfo {
        try Vips.start()
        if data.isEmpty { throw ImageError(.empty, "The image data is empty.") }
        if data.count > maxFileBytes {
            throw ImageError(.tooLarge, "The image is \(ImageFile.megabytes(data.count)), over the limit.")
        }
        var header = CVipsHeader()
        let result: Int32 = data.withUnsafeBytes { raw in
            guard cvips_header_buffer(raw.baseAddress, raw.count, &header) == 0 else { return -1 }
            return 0
        }
        if result != 0 {
            let detail = Vips.takeError()
            let known = data.withUnsafeBytes { raw in cvips_is_known_buffer(raw.baseAddress, raw.count) != 0 }
            Vips.takeError()
            throw known
                ? ImageError(.corrupt, "The image is truncated or corrupt.", detail: detail)
                : ImageError(.notAnImage, "The data is not an image libvips can read.", detail: detail)
        }
        let info = ImageInfo(header, byteCount: 0)
        try info.checkLimits(maxPixels: maxPixels, name: "The image", path: nil)
        return info
    }

    init(_ header: CVipsHeader, byteCount: Int) {
        storedWidth = Int(header.width)
        storedHeight = Int(header.height)
        orientation = (1...8).contains(header.orientation) ? Int(header.orientation) : 1
        // Orientations 5–8 turn the image a quarter, swapping its sides.
        let swaps = orientation >= 5
        width = swaps ? storedHeight : storedWidth
        height = swaps ? storedWidth : storedHeight
        bands = Int(header.bands)
        hasAlpha = header.has_alpha != 0
        pages = max(1, Int(header.pages))
        format = Self.formatName(loader: withUnsafeBytes(of: header.loader) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        })
        colorSpace = Self.nick(cvips_interpretation_nick(header.interpretation))
        sampleFormat = Self.nick(cvips_format_nick(header.format))
        self.byteCount = byteCount
    }

    func checkLimits(maxPixels: Int, name: String, path: String?) throws(ImageError) {
        guard storedWidth > 0, storedHeight > 0 else {
            throw ImageError(.corrupt, "\(name) has no pixels.", path: path)
        }
        // Multiplied in Int (64-bit): a 65535×65535 header cannot overflow.
        if storedWidth * storedHeight > maxPixels {
            let megapixels = storedWidth * storedHeight / 1_000_000
            throw ImageError(
                .tooManyPixels,
                "\(name) claims \(storedWidth)×\(storedHeight) (\(megapixels) MP), over the \(maxPixels / 1_000_000) MP limit.",
                path: path)
        }
    }

    /// "VipsForeignLoadJpegSource" → "jpeg", "VipsForeignLoadNsgifSource" → "gif".
    static func formatName(loader: String) -> String {
        var name = loader.lowercased()
        for prefix in ["vipsforeignload"] where name.hasPrefix(prefix) {
            name.removeFirst(prefix.count)
        }
        for suffix in ["source", "buffer", "file"] where name.hasSuffix(suffix) {
            name.removeLast(suffix.count)
        }
        let aliases = ["nsgif": "gif", "jpeg2k": "jp2k", "magick7": "magick", "magick6": "magick"]
        return aliases[name] ?? name
    }

    private static func nick(_ name: UnsafePointer<CChar>?) -> String {
        name.map { String(cString: $0) } ?? "unknown"
    }
}
