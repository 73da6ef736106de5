import CVipsShim

/// An owned `VipsImage` reference, released when the owner goes away.
final class VipsImageRef {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { cvips_unref(pointer) }

    var width: Int { Int(cvips_image_width(pointer)) }
    var height: Int { Int(cvips_image_height(pointer)) }
    var bands: Int { Int(cvips_image_bands(pointer)) }

    /// Runs a shim call that produces a new image.
    static func make(
        _ code: ImageError.Code, _ message: @autoclosure () -> String, path: String? = nil,
        _ body: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(ImageError) -> VipsImageRef {
        var out: OpaquePointer?
        let result = body(&out)
        guard result == 0, let out else {
            if let out { cvips_unref(out) }
            throw ImageError(code, message(), path: path, detail: Vips.takeError())
        }
        return VipsImageRef(out)
    }
}
