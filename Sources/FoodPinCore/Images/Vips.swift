import CVipsShim
import Foundation

/// libvips, loaded and started once per process and tuned for an interactive app.
///
/// Nothing links libvips or libchafa: the first ``start()`` has the C shim open them with
/// `dlopen`, so commands that draw no image never pay for their ~120 shared libraries.
/// libvips is thread-safe once started; starting it is not, so every entry point
/// calls ``start()`` first, which runs the setup exactly once (a `static let`).
enum Vips {
    /// Whether libvips started; the reason when it did not.
    private static let started: Result<Void, ImageError> = {
        switch cvips_init("foodpin") {
        case 0: break
        case -2:
            let reason = cvips_load_error().map { String(cString: $0) } ?? "unknown reason"
            return .failure(ImageError(.decodeFailed, "The image library (libvips) could not be loaded.", detail: reason))
        default:
            return .failure(ImageError(.decodeFailed, "The image library (libvips) failed to start.", detail: takeError()))
        }
        // One worker per pipeline keeps a background thumbnail from starving the UI thread
        // on small machines; the operation cache is off because every call reads a new file
        // and cached decodes would only hold memory (and could serve a stale file).
        cvips_configure(1, 0, 0, 0)
        return .success(())
    }()

    static func start() throws(ImageError) {
        try started.get()
    }

    /// Takes (and clears) libvips' error text. The buffer is process-wide, so under
    /// concurrency it may mix messages; it is only ever used as detail, never to decide.
    @discardableResult
    static func takeError() -> String {
        guard let text = cvips_error_copy() else { return "" }
        defer { cvips_free(text) }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a libvips call that returns 0 on success, turning failure into an ``ImageError``.
    static func check(_ result: Int32, _ code: ImageError.Code, _ message: @autoclosure () -> String, path: String? = nil) throws(ImageError) {
        if result != 0 {
            throw ImageError(code, message(), path: path, detail: takeError())
        }
    }
}
