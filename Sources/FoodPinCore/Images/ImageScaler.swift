import CVipsShim
import Foundation

/// Turns a user's photo into the JPEG that goes into the public database:
/// upright, sRGB, alpha on white, at most `maxWidth` wide, quality `quality`, no metadata.
///
/// ```swift
/// let scaler = ImageScaler()                       // 1024 px, Q80
/// let jpeg = try scaler.scale(fileAt: photoURL)    // Data, off the UI thread
/// let written = try scaler.scale(fileAt: photoURL, to: tempURL)
/// ```
///
/// Files are checked before any decoder runs: directories, FIFOs, empty files, files over
/// `maxFileBytes`, and headers claiming more than `maxPixels` pixels (decompression bombs)
/// are rejected without allocating pixel memory. Truncated files fail instead of coming out grey.
/// The value is immutable and `Sendable`; call it from any thread, never the UI thread.
package struct ImageScaler: Hashable, Sendable {
    /// Files larger than this (50 MB) are refused before reading.
    package static let defaultMaxFileBytes = 50 * 1024 * 1024
    /// Images claiming more pixels than this (100 megapixels) are refused from their header.
    package static let defaultMaxPixels = 100_000_000

    package var maxWidth: Int
    package var quality: Int
    package var maxFileBytes: Int
    package var maxPixels: Int

    package init(
        maxWidth: Int = 1024, quality: Int = 80,
        maxFileBytes: Int = ImageScaler.defaultMaxFileBytes, maxPixels: Int = ImageScaler.defaultMaxPixels
    ) {
        self.maxWidth = max(1, maxWidth)
        self.quality = min(100, max(1, quality))
        self.maxFileBytes = maxFileBytes
        self.maxPixels = maxPixels
    }

    /// For a command that scales one photo and exits (`foodpin add --image`): libvips starts
    /// loading now, on another thread, and its pipelines get a worker per core.
    /// Call it before anything else touches an image.
    package static func prepareForOneShot() {
        Vips.prepareForOneShot()
    }

    /// Scales the image at `url` and returns the JPEG bytes.
    ///
    /// - Throws: ``ImageError``: `.unreadable`, `.isDirectory`, `.empty`, `.tooLarge`,
    ///   `.notAnImage`, `.tooManyPixels`, `.corrupt` or `.decodeFailed`.
    package func scale(fileAt url: URL) throws(ImageError) -> Data {
        try encode(fileAt: url).data
    }

    /// Scales the image at `url` and writes the JPEG to `output`, replacing it atomically.
    ///
    /// - Throws: the errors of ``scale(fileAt:)``, and `.writeFailed` when `output` cannot be written.
    @discardableResult
    package func scale(fileAt url: URL, to output: URL) throws(ImageError) -> ScaledImage {
        let encoded = try encode(fileAt: url)
        do {
            try encoded.data.write(to: output, options: .atomic)
        } catch {
            throw ImageError(
                .writeFailed, "Cannot write \(output.lastPathComponent): \(error.localizedDescription)",
                path: output.path)
        }
        return ScaledImage(width: encoded.width, height: encoded.height, byteCount: encoded.data.count)
    }

    /// The libjpeg scale-on-decode factor (1, 2, 4 or 8) for a photo `width` pixels wide going
    /// to `target`: the largest that still leaves at least 1.5× for the Lanczos reduce.
    ///
    /// libvips 8.14 itself leaves 2×, so a 4000 px photo bound for 1024 px (3.9×) is decoded at
    /// full size; decoding at half size does a quarter of the IDCT and colour work for the same
    /// output quality (see docs/PERFORMANCE.md).
    static func jpegShrink(from width: Int, to target: Int) -> Int {
        jpegShrink(ratio: Double(width) / Double(max(1, target)))
    }

    /// The same, for an image that must shrink by `ratio` overall.
    static func jpegShrink(ratio: Double) -> Int {
        [8, 4, 2].first { ratio / Double($0) >= 1.5 } ?? 1
    }

    private func encode(fileAt url: URL) throws(ImageError) -> (data: Data, width: Int, height: Int) {
        let info = try ImageInfo.probe(url, maxFileBytes: maxFileBytes, maxPixels: maxPixels)
        let path = url.path
        let name = url.lastPathComponent
        // A huge height lets the width alone bound the size; VIPS_SIZE_DOWN never upscales.
        let shrink = info.format == "jpeg" ? Self.jpegShrink(from: info.width, to: maxWidth) : 1
        let thumbnail = try VipsImageRef.make(.corrupt, "\(name) is truncated or corrupt.", path: path) {
            info.format == "jpeg"
                ? cvips_thumbnail_jpeg_file(path, Int32(shrink), Int32(maxWidth), 10_000_000, $0)
                : cvips_thumbnail_file(path, Int32(maxWidth), 10_000_000, $0)
        }
        let flat = try VipsImageRef.make(.decodeFailed, "\(name) could not be converted to sRGB.", path: path) {
            cvips_to_srgb8_flat(thumbnail.pointer, $0)
        }
        // Pixels are decoded here, lazily, so truncation and corruption surface from the save.
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard cvips_jpegsave_buffer(flat.pointer, Int32(quality), &buffer, &length) == 0, let buffer else {
            throw ImageError(.corrupt, "\(name) is truncated or corrupt.", path: path, detail: Vips.takeError())
        }
        defer { cvips_free(buffer) }
        return (Data(bytes: buffer, count: length), flat.width, flat.height)
    }
}
