import FoodPinCore
import Foundation

/// `foodpin-bench scale [FILE] [--runs N]`
///
/// Scales one 12-megapixel JPEG to 1024 px wide at Q80 with ``ImageScaler`` (in process),
/// `vipsthumbnail --size 1024x -o out.jpg[Q=80,strip]` and ImageMagick
/// `convert -resize 1024x -quality 80`, interleaved, several runs each, and reports medians.
/// Quality: PSNR of each output against an exact (non shrink-on-load) Lanczos downscale,
/// and the mean absolute difference between ours and vipsthumbnail's.
/// Then times ``ThumbnailRenderer`` on the sample assets, one list row each (cold: no cache).
struct ScaleBenchmark {
    var input: URL?
    var runs = 7

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--runs", let value = rest.popFirst().flatMap(Int.init) {
                runs = max(1, value)
            } else if !argument.hasPrefix("-") {
                input = URL(fileURLWithPath: argument)
            } else {
                throw Bench.Failure(description: "unknown option \(argument)")
            }
        }
    }

    func run() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("foodpin-bench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        guard let vips = Bench.tool(["/usr/bin/vips"]), let vipsthumbnail = Bench.tool(["/usr/bin/vipsthumbnail"]) else {
            throw Bench.Failure(description: "needs the vips and vipsthumbnail CLIs (libvips-tools)")
        }
        // The real ImageMagick binary, not a wrapper script that would add its own startup.
        let convert = Bench.tool(["/usr/bin/convert-im6.q16", "/usr/bin/convert", "/usr/local/bin/convert"])

        let file = try input ?? makeTwelveMegapixelJPEG(in: work, convert: convert)
        let info = try ImageInfo.probe(file)
        print("input: \(file.path)  \(info.width)×\(info.height) \(info.format), \(info.byteCount / 1024) KB")
        print("runs: \(runs) each, interleaved; median (min)\n")

        let scaler = ImageScaler(maxWidth: 1024, quality: 80)
        let ours = work.appendingPathComponent("ours.jpg")
        let theirs = work.appendingPathComponent("vipsthumbnail.jpg")
        let magick = work.appendingPathComponent("convert.jpg")

        var wall: [String: [Double]] = [:]
        var cpu: [String: [Double]] = [:]
        var scaled = ScaledImage(width: 0, height: 0, byteCount: 0)
        for round in 0...runs {  // round 0 warms the page cache, libvips and dynamic loaders
            var results: [(String, (wall: Double, cpu: Double))] = []
            results.append(("ImageScaler", try Bench.measure { scaled = try scaler.scale(fileAt: file, to: ours) }))
            results.append(("vipsthumbnail", try Bench.measure {
                try Bench.run(vipsthumbnail, [file.path, "--size", "1024x", "-o", theirs.path + "[Q=80,strip]"])
            }))
            if let convert {
                results.append(("convert", try Bench.measure {
                    try Bench.run(convert, [file.path, "-resize", "1024x", "-quality", "80", "-strip", magick.path])
                }))
            }
            guard round > 0 else { continue }
            for (name, time) in results {
                wall[name, default: []].append(time.wall)
                cpu[name, default: []].append(time.cpu)
            }
        }

        let reference = work.appendingPathComponent("reference.v")
        let factor = 1024.0 / Double(info.width)
        if factor < 1 {
            try Bench.run(vips, ["resize", file.path, reference.path, String(format: "%.10f", factor), "--kernel", "lanczos3"])
        }
        let base = Bench.median(wall["vipsthumbnail"] ?? [])
        let cpuBase = Bench.median(cpu["vipsthumbnail"] ?? [])
        print("| tool | wall median | wall min | × vipsthumbnail | CPU median | CPU × vipsthumbnail | output | PSNR vs exact Lanczos |")
        print("|---|---|---|---|---|---|---|---|")
        for (name, output) in [("ImageScaler", ours), ("vipsthumbnail", theirs), ("convert", magick)] {
            let values = wall[name] ?? []
            guard let minimum = values.min() else {
                print("| \(name) | not installed | | | | | | |")
                continue
            }
            let median = Bench.median(values)
            let cpuMedian = Bench.median(cpu[name] ?? [])
            let size = try header(vips, output)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
            let psnr = factor < 1 ? (try? psnr(vips, output, reference, work: work)).map { String(format: "%.2f dB", $0) } ?? "n/a" : "n/a"
            print("| \(name) | \(Bench.format(median)) | \(Bench.format(minimum)) | \(String(format: "%.2f×", median / base)) "
                + "| \(Bench.format(cpuMedian)) | \(String(format: "%.2f×", cpuMedian / cpuBase)) | \(size), \(bytes / 1024) KB | \(psnr) |")
        }
        let diff = try meanAbsoluteDifference(vips, ours, theirs, work: work)
        print("\nImageScaler output: \(scaled.width)×\(scaled.height), \(scaled.byteCount) bytes; "
            + String(format: "mean |ours − vipsthumbnail| = %.3f levels (of 255)", diff))

        try benchmarkThumbnails()
    }

    /// A 4000×3000 photo-like JPEG: a gradient with grain and shapes, ~2.5 MB at Q90.
    func makeTwelveMegapixelJPEG(in work: URL, convert: String?) throws -> URL {
        guard let convert else { throw Bench.Failure(description: "give a FILE or install ImageMagick to generate one") }
        let out = work.appendingPathComponent("twelve-megapixels.jpg")
        try Bench.run(convert, [
            "-size", "4000x3000", "gradient:orange-navy",
            "(", "-size", "4000x3000", "xc:gray50", "-attenuate", "0.4", "+noise", "Gaussian", ")",
            "-compose", "overlay", "-composite",
            "-fill", "white", "-draw", "circle 2000,1500 2600,1500",
            "-fill", "darkgreen", "-draw", "rectangle 300,2200 1500,2900",
            "-quality", "90", out.path,
        ])
        return out
    }

    func header(_ vips: String, _ file: URL) throws -> String {
        let width = try Bench.run("/usr/bin/vipsheader", ["-f", "width", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let height = try Bench.run("/usr/bin/vipsheader", ["-f", "height", file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        return "\(width)×\(height)"
    }

    func psnr(_ vips: String, _ image: URL, _ reference: URL, work: URL) throws -> Double {
        let difference = work.appendingPathComponent("difference.v")
        let squared = work.appendingPathComponent("squared.v")
        try Bench.run(vips, ["subtract", image.path, reference.path, difference.path])
        try Bench.run(vips, ["multiply", difference.path, difference.path, squared.path])
        let mse = Double(try Bench.run(vips, ["avg", squared.path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
        return 10 * log10(255 * 255 / mse)
    }

    func meanAbsoluteDifference(_ vips: String, _ a: URL, _ b: URL, work: URL) throws -> Double {
        let difference = work.appendingPathComponent("ab-difference.v")
        let absolute = work.appendingPathComponent("ab-absolute.v")
        try Bench.run(vips, ["subtract", a.path, b.path, difference.path])
        try Bench.run(vips, ["abs", difference.path, absolute.path])
        return Double(try Bench.run(vips, ["avg", absolute.path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    /// Cold thumbnails: every sample restaurant rendered once into a list-row box, no cache.
    func benchmarkThumbnails() throws {
        let folder = Self.assetsFolder()
        let records = try JSONDecoder().decode(
            [[String: String]].self, from: Data(contentsOf: folder.appendingPathComponent("restaurants.json")))
        let files = records.compactMap { $0["image"] }.map { folder.appendingPathComponent($0) }
        print("\nthumbnails: \(files.count) sample assets (640×480 JPEG), one render each per round")
        print("| box | colours | wall median / row | wall p95 / row | CPU median / row | 24 rows, one thread (wall) |")
        print("|---|---|---|---|---|---|")
        for (box, label) in [(CellBox.listRow, "list row 8×4"), (CellBox.detail, "detail 48×20")] {
            for mode in [ColorMode.colors256, .none] {
                let renderer = ThumbnailRenderer(colorMode: mode)
                var samples: [Double] = []
                var cpu: [Double] = []
                for round in 0...3 {
                    for file in files {
                        let time = try Bench.measure { _ = try renderer.render(fileAt: file, in: box) }
                        if round > 0 {
                            samples.append(time.wall)
                            cpu.append(time.cpu)
                        }
                    }
                }
                let median = Bench.median(samples)
                print("| \(label) | \(mode.rawValue) | \(Bench.format(median)) | \(Bench.format(Bench.percentile(samples, 0.95))) "
                    + "| \(Bench.format(Bench.median(cpu))) | \(Bench.format(median * 24)) |")
            }
        }
    }

    static func assetsFolder() -> URL {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Assets/Restaurants")
        if FileManager.default.fileExists(atPath: cwd.path) { return cwd }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assets/Restaurants")
    }
}
