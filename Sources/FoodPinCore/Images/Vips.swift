import CVipsShim
import Foundation
import Synchronization

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
        // on small machines (a one-shot command uses every core: see prepareForOneShot); the
        // operation cache is off because every call reads a new file and cached decodes would
        // only hold memory (and could serve a stale file).
        let workers = oneShot.load(ordering: .acquiring) ? ProcessInfo.processInfo.activeProcessorCount : 1
        cvips_configure(Int32(max(1, workers)), 0, 0, 0)
        return .success(())
    }()

    /// Set by ``prepareForOneShot()`` before libvips starts.
    private static let oneShot = Atomic<Bool>(false)

    static func start() throws(ImageError) {
        try started.get()
    }

    /// For a command that scales one photo and exits (`foodpin add --image`): starts loading
    /// libvips now, on another thread (about 25 ms for its ~100 libraries), while the command
    /// opens the store; and gives its pipelines a worker per core, as `vipsthumbnail` has, since
    /// no screen waits on the CPU. Call it before anything else touches an image; a failure to
    /// load is reported by the first image call, as without it.
    static func prepareForOneShot() {
        oneShot.store(true, ordering: .releasing)
        Thread.detachNewThread { _ = started }
    }

    /// Whether libvips' format modules (HEIF, JPEG XL, ImageMagick, PDF, OpenSlide) are in.
    /// libvips starts without them; the first file no built-in loader knows loads them.
    static var modulesLoaded: Bool { cvips_modules_loaded() != 0 }

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
