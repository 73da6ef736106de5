import CVipsShim
import Foundation

/// Draws an image as coloured terminal cells: libvips decodes and shrinks it,
/// libchafa picks a block symbol and two colours for each cell.
///
/// ```swift
/// let renderer = ThumbnailRenderer(colorMode: .colors256)
/// let thumbnail = try renderer.render(fileAt: assetURL, in: .listRow)   // off the UI thread
/// ```
///
/// The canvas mode follows the terminal: `.colors256` → chafa's INDEXED_240 (the palette
/// above the 16 user-themed colours), `.colors16` → INDEXED_16, `.colors8` → INDEXED_8,
/// `.none` → FGBG, where only the symbols carry the shape and colours stay `.default`.
package struct ThumbnailRenderer: Hashable, Sendable {
    package var colorMode: ColorMode
    package var maxFileBytes: Int
    package var maxPixels: Int
    /// With a pixel mode, each thumbnail also carries the photo encoded for the terminal
    /// (``Thumbnail/pixels``), decoded at the box's real pixel size.
    package var encoder: ChafaEncoder?

    /// Pixels decoded per cell; chafa looks at an 8×8 grid of each cell.
    static let pixelsPerColumn = 8
    static let pixelsPerRow = 16

    package init(
        colorMode: ColorMode,
        maxFileBytes: Int = ImageScaler.defaultMaxFileBytes, maxPixels: Int = ImageScaler.defaultMaxPixels,
        encoder: ChafaEncoder? = nil
    ) {
        self.encoder = encoder
        self.colorMode = colorMode
        self.maxFileBytes = maxFileBytes
        self.maxPixels = maxPixels
    }

    /// Renders the image file at `url` into `box`.
    ///
    /// - Throws: ``ImageError`` as ``ImageInfo/probe(_:maxFileBytes:maxPixels:)`` does, and
    ///   `.corrupt` when the pixels cannot be decoded.
    package func render(fileAt url: URL, in box: CellBox) throws(ImageError) -> Thumbnail {
        let info = try ImageInfo.probe(url, maxFileBytes: maxFileBytes, maxPixels: maxPixels)
        let path = url.path
        let size = pixelSize(for: box)
        var pixels = CVipsPixels()
        let result = info.format == "jpeg"
            ? cvips_pixels_jpeg_file(path, Self.jpegShrink(info, size), Int32(size.width), Int32(size.height), &pixels)
            : cvips_pixels_file(path, Int32(size.width), Int32(size.height), &pixels)
        return try draw(result, pixels, info: info, in: box, name: url.lastPathComponent, path: path)
    }

    /// Renders encoded image bytes (JPEG, PNG, …) into `box`, exactly as the same file would be.
    package func render(data: Data, in box: CellBox) throws(ImageError) -> Thumbnail {
        let info = try ImageInfo.probe(data: data, maxFileBytes: maxFileBytes, maxPixels: maxPixels)
        let size = pixelSize(for: box)
        // The pixels are in memory when the shim returns, so the bytes need not outlive the call.
        var pixels = CVipsPixels()
        let result = data.withUnsafeBytes { raw in
            info.format == "jpeg"
                ? cvips_pixels_jpeg_buffer(
                    raw.baseAddress, raw.count, Self.jpegShrink(info, size), Int32(size.width), Int32(size.height), &pixels)
                : cvips_pixels_buffer(raw.baseAddress, raw.count, Int32(size.width), Int32(size.height), &pixels)
        }
        return try draw(result, pixels, info: info, in: box, name: "The image", path: nil)
    }

    /// JPEGs (every stored asset) decode straight at 1/n and go to libchafa as libjpeg
    /// delivers them: chafa resamples to its 8×8 pixels per cell anyway.
    private static func jpegShrink(_ info: ImageInfo, _ size: (width: Int, height: Int)) -> Int32 {
        let ratio = max(Double(info.width) / Double(size.width), Double(info.height) / Double(size.height))
        return Int32(ImageScaler.jpegShrink(ratio: ratio))
    }

    static func pixelSize(for box: CellBox) -> (width: Int, height: Int) {
        (box.columns * pixelsPerColumn, box.rows * pixelsPerRow)
    }

    /// The pixels to decode: enough for chafa's symbols, and for the photo at the box's real
    /// pixel size when it is encoded for a graphics protocol.
    func pixelSize(for box: CellBox) -> (width: Int, height: Int) {
        let symbols = Self.pixelSize(for: box)
        guard let encoder else { return symbols }
        let photo = encoder.pixelSize(columns: box.columns, rows: box.rows)
        return (max(symbols.width, photo.width), max(symbols.height, photo.height))
    }

    /// The cells an image of `width`×`height` pixels fills in `box`, keeping its aspect
    /// ratio on cells about twice as tall as wide.
    static func fit(width: Int, height: Int, in box: CellBox) -> (columns: Int, rows: Int) {
        guard width > 0, height > 0 else { return (box.columns, box.rows) }
        let aspect = Double(width) / Double(height)
        var columns = box.columns
        var rows = Int((Double(columns) / aspect / 2).rounded())
        if rows > box.rows {
            rows = box.rows
            columns = Int((Double(rows) * 2 * aspect).rounded())
        }
        return (min(box.columns, max(1, columns)), min(box.rows, max(1, rows)))
    }

    /// Draws decoded pixels (`result` is the shim's return code) and frees them. The cells
    /// follow the image's own (upright) aspect, not the rounded size of a 1/n decode.
    private func draw(
        _ result: Int32, _ pixels: CVipsPixels, info: ImageInfo, in box: CellBox, name: String, path: String?
    ) throws(ImageError) -> Thumbnail {
        defer { cvips_free(pixels.data) }
        if result == -3 {
            throw ImageError(.decodeFailed, "\(name) could not be converted to sRGB.", path: path, detail: Vips.takeError())
        }
        guard result == 0, let data = pixels.data else {
            throw ImageError(.corrupt, "\(name) is truncated or corrupt.", path: path, detail: Vips.takeError())
        }
        let width = Int(pixels.width)
        let height = Int(pixels.height)
        let bands = Int(pixels.bands)
        guard width > 0, height > 0, bands == 3 || bands == 4 else {
            throw ImageError(.decodeFailed, "\(name) decoded to an unexpected size.", path: path)
        }
        let fitted = Self.fit(width: info.width, height: info.height, in: box)
        let canvas = ChafaDrawing(columns: fitted.columns, rows: fitted.rows, colorMode: colorMode)
        canvas.draw(data.assumingMemoryBound(to: UInt8.self), width: width, height: height, bands: bands)

        let left = (box.columns - fitted.columns) / 2
        let top = (box.rows - fitted.rows) / 2
        var cells = Array(repeating: Cell.blank, count: box.columns * box.rows)
        for y in 0..<fitted.rows {
            for x in 0..<fitted.columns {
                cells[(top + y) * box.columns + left + x] = canvas.cell(x: x, y: y)
            }
        }
        let photo = encoder?.encode(data.assumingMemoryBound(to: UInt8.self), width: width, height: height, bands: bands,
                                    columns: fitted.columns, rows: fitted.rows)
        return Thumbnail(
            width: box.columns, height: box.rows, cells: cells,
            imageColumns: left..<(left + fitted.columns), imageRows: top..<(top + fitted.rows), pixels: photo)
    }
}
