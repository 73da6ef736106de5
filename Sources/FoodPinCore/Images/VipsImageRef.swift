import CVips
import CVipsShim

/// An owned `VipsImage` reference, released when the owner goes away.
final class VipsImageRef {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }
    deinit { cvips_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }

    /// Runs a shim call that produces a new image.
    static func make(
        _ code: ImageError.Code, _ message: @autoclosure () -> String, path: String? = nil,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImageError) -> VipsImageRef {
        var out: UnsafeMutablePointer<VipsImage>?
        let result = body(&out)
        guard result == 0, let out else {
            if let out { cvips_unref(out) }
            throw ImageError(code, message(), path: path, detail: Vips.takeError())
        }
        return VipsImageRef(out)
    }
}
