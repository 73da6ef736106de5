import Foundation
import Testing

@testable import FoodPinCore

#if canImport(Glibc)
import Glibc
#endif

/// The add form's pipeline on images the tests draw themselves.
// Serialized: these are CPU-heavy and synchronous; run in parallel they starve the 2-thread cooperative pool.
@Suite(.serialized) struct ImageScalerTests {
    let fixtures: ImageFixtures
    let scaler = ImageScaler()

    init() throws { fixtures = try ImageFixtures() }

    /// Scales `input` to a file and checks what every output must be: a JPEG of the
    /// expected size, 3-band 8-bit sRGB, upright, with no EXIF, GPS, XMP or ICC left.
    @discardableResult
    func scaleAndCheck(_ input: URL, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> URL {
        let output = fixtures.url(input.deletingPathExtension().lastPathComponent + "-scaled.jpg")
        let scaled = try scaler.scale(fileAt: input, to: output)
        #expect(scaled.width == width && scaled.height == height, sourceLocation: sourceLocation)

        let data = try Data(contentsOf: output)
        #expect(scaled.byteCount == data.count, sourceLocation: sourceLocation)
        #expect(data.isJPEG, sourceLocation: sourceLocation)
        #expect(!data.carriesMetadata, sourceLocation: sourceLocation)

        let info = try ImageInfo.probe(output)
        #expect(info.format == "jpeg", sourceLocation: sourceLocation)
        #expect(info.width == width && info.height == height, sourceLocation: sourceLocation)
        #expect(info.bands == 3 && info.colorSpace == "srgb" && info.sampleFormat == "uchar", sourceLocation: sourceLocation)
        #expect(info.orientation == 1, sourceLocation: sourceLocation)

        let header = try await ImageFixtures.header(output)
        for field in ["exif-data", "gps", "orientation", "icc-profile-data", "xmp-data"] {
            #expect(!header.lowercased().contains(field), "\(field) survived", sourceLocation: sourceLocation)
        }
        return output
    }

    @Test func twelveMegapixelJPEGBecomes1024Wide() async throws {
        let input = try await fixtures.convert(["-size", "4000x3000", "gradient:orange-navy", "-quality", "92"], to: "big.jpg")
        let output = try await scaleAndCheck(input, width: 1024, height: 768)
        // The in-memory variant gives the same picture.
        let data = try scaler.scale(fileAt: input)
        #expect(data.isJPEG)
        #expect(try ImageInfo.probe(data: data).width == 1024)
        #expect(try Data(contentsOf: output).count == data.count)
    }

    @Test func smallImageIsNotUpscaled() async throws {
        let input = try await fixtures.convert(["-size", "500x300", "gradient:white-green"], to: "small.png")
        try await scaleAndCheck(input, width: 500, height: 300)
    }

    @Test func alphaIsFlattenedOntoWhite() async throws {
        // Left half fully transparent, right half opaque blue.
        let input = try await fixtures.convert(
            ["-size", "200x100", "xc:none", "-fill", "blue", "-draw", "rectangle 100,0 199,99"], to: "alpha.png")
        #expect(try ImageInfo.probe(input).hasAlpha)
        let output = try await scaleAndCheck(input, width: 200, height: 100)
        let transparent = try await ImageFixtures.pixel(output, 40, 50)
        #expect(transparent.count == 3 && transparent.allSatisfy { $0 >= 245 }, "\(transparent)")
        let blue = try await ImageFixtures.pixel(output, 160, 50)
        #expect(blue.count == 3 && blue[0] < 30 && blue[1] < 30 && blue[2] > 220, "\(blue)")
    }

    @Test func halfTransparentRedBecomesPink() async throws {
        let input = try await fixtures.convert(["-size", "120x80", "xc:rgba(255,0,0,0.5)"], to: "pink.png")
        let output = try await scaleAndCheck(input, width: 120, height: 80)
        let pink = try await ImageFixtures.pixel(output, 60, 40)
        #expect(pink.count == 3 && pink[0] > 240 && (100...160).contains(pink[1]) && (100...160).contains(pink[2]), "\(pink)")
    }

    @Test func greyscaleBecomesThreeBandSRGB() async throws {
        let input = try await fixtures.convert(
            ["-size", "1600x1200", "gradient:white-black", "-colorspace", "Gray"], to: "grey.jpg")
        #expect(try ImageInfo.probe(input).bands == 1)
        let output = try await scaleAndCheck(input, width: 1024, height: 768)
        let top = try await ImageFixtures.pixel(output, 512, 2)
        #expect(top.allSatisfy { $0 > 240 }, "\(top)")
    }

    @Test func sixteenBitImagesBecomeEightBit() async throws {
        let rgb16 = try await fixtures.convert(["-size", "300x200", "gradient:red-blue", "-depth", "16"], to: "rgb16.png")
        #expect(try ImageInfo.probe(rgb16).sampleFormat == "ushort")
        let rgbOut = try await scaleAndCheck(rgb16, width: 300, height: 200)
        let red = try await ImageFixtures.pixel(rgbOut, 150, 1)
        #expect(red[0] > 230 && red[2] < 30, "16-bit values must be scaled down, not clipped: \(red)")

        let grey16 = try await fixtures.convert(
            ["-size", "300x200", "gradient:white-black", "-colorspace", "Gray", "-depth", "16"], to: "grey16.png")
        #expect(try ImageInfo.probe(grey16).colorSpace == "grey16")
        let greyOut = try await scaleAndCheck(grey16, width: 300, height: 200)
        let middle = try await ImageFixtures.pixel(greyOut, 150, 100)
        #expect(middle.allSatisfy { (90...170).contains($0) }, "\(middle)")
    }

    @Test func cmykJPEGBecomesSRGB() async throws {
        let input = try await fixtures.convert(["-size", "300x200", "xc:red", "-colorspace", "CMYK"], to: "cmyk.jpg")
        let probed = try ImageInfo.probe(input)
        #expect(probed.colorSpace == "cmyk" && probed.bands == 4)
        let output = try await scaleAndCheck(input, width: 300, height: 200)
        let red = try await ImageFixtures.pixel(output, 150, 100)
        #expect(red[0] > 180 && red[1] < 90 && red[2] < 90, "\(red)")
    }

    /// Numbers in an Adobe RGB photo mean other colours than in sRGB; stripping the
    /// profile without converting would shift them. Compared with `vips icc_transform`.
    @Test func embeddedProfileIsConvertedToSRGB() async throws {
        let profile = "/usr/share/color/icc/ghostscript/a98.icc"
        try #require(FileManager.default.fileExists(atPath: profile))
        let input = try await fixtures.convert(["-size", "100x100", "xc:rgb(60,180,90)", "-profile", profile], to: "adobe.jpg")
        #expect(try await ImageFixtures.header(input).contains("icc-profile-data"))
        let reference = fixtures.url("reference.v")
        try await ImageFixtures.run("vips", ["icc_transform", input.path, reference.path, "srgb", "--embedded"])
        let expected = try await ImageFixtures.pixel(reference, 50, 50)

        let output = try await scaleAndCheck(input, width: 100, height: 100)
        let actual = try await ImageFixtures.pixel(output, 50, 50)
        #expect(abs(expected[0] - 60) > 20, "the fixture must need converting: \(expected)")
        #expect(zip(actual, expected).allSatisfy { abs($0 - $1) <= 4 }, "\(actual) vs \(expected)")
    }

    /// Orientation 6 means "turn 90° clockwise to view": the stored top edge ends on the right.
    /// Orientation 8 turns the other way: the stored top edge ends on the left.
    @Test(arguments: [(UInt16(6), true), (UInt16(8), false)])
    func exifOrientationIsApplied(orientation: UInt16, redOnRight: Bool) async throws {
        // Stored 600×400, red at the top fading to blue at the bottom.
        let plain = try await fixtures.convert(["-size", "600x400", "gradient:red-blue"], to: "plain.jpg")
        let input = try fixtures.jpegWithExif(plain, orientation: orientation, name: "o\(orientation).jpg")
        let probed = try ImageInfo.probe(input)
        #expect(probed.orientation == Int(orientation))
        #expect(probed.width == 400 && probed.height == 600)
        #expect(try await ImageFixtures.header(input).contains("GPSLatitudeRef"))

        let output = try await scaleAndCheck(input, width: 400, height: 600)
        let left = try await ImageFixtures.pixel(output, 5, 300)
        let right = try await ImageFixtures.pixel(output, 394, 300)
        let (red, blue) = redOnRight ? (right, left) : (left, right)
        #expect(red[0] > 200 && red[2] < 60, "expected red, got \(red)")
        #expect(blue[2] > 200 && blue[0] < 60, "expected blue, got \(blue)")
    }

    @Test func jpegShrinkLeavesRoomForTheReduce() {
        #expect(ImageScaler.jpegShrink(from: 4000, to: 1024) == 2)
        #expect(ImageScaler.jpegShrink(from: 1600, to: 1024) == 1)
        #expect(ImageScaler.jpegShrink(from: 2900, to: 1024) == 1)
        #expect(ImageScaler.jpegShrink(from: 6200, to: 1024) == 4)
        #expect(ImageScaler.jpegShrink(from: 13000, to: 1024) == 8)
        #expect(ImageScaler.jpegShrink(from: 500, to: 1024) == 1)
    }

    /// The JPEG shrink-on-decode path (3200 px → 1024) keeps orientation, CMYK and truncation right.
    @Test func largeJPEGsTakeTheShrinkOnDecodePath() async throws {
        // Stored 2000×3200 (portrait, red at the top); orientation 6 shows it 3200×2000, red on the right.
        let stored = try await fixtures.convert(["-size", "2000x3200", "gradient:red-blue"], to: "stored.jpg")
        let rotated = try fixtures.jpegWithExif(stored, orientation: 6, name: "rotated.jpg")
        #expect(ImageScaler.jpegShrink(from: try ImageInfo.probe(rotated).width, to: 1024) == 2)
        let output = try await scaleAndCheck(rotated, width: 1024, height: 640)
        let left = try await ImageFixtures.pixel(output, 4, 320)
        let right = try await ImageFixtures.pixel(output, 1019, 320)
        #expect(right[0] > 200 && right[2] < 60, "\(right)")
        #expect(left[2] > 200 && left[0] < 60, "\(left)")

        let cmyk = try await fixtures.convert(["-size", "3200x2000", "xc:red", "-colorspace", "CMYK"], to: "cmyk-big.jpg")
        let cmykOut = try await scaleAndCheck(cmyk, width: 1024, height: 640)
        let red = try await ImageFixtures.pixel(cmykOut, 512, 320)
        #expect(red[0] > 180 && red[1] < 90 && red[2] < 90, "\(red)")

        let noise = try await fixtures.convert(["-size", "3200x2000", "xc:gray", "+noise", "Random"], to: "noise-big.jpg")
        let bytes = try Data(contentsOf: noise)
        expectError(.corrupt, for: try fixtures.write(bytes.prefix(bytes.count / 2), to: "noise-cut.jpg"))
    }

    @Test(arguments: ["webp", "gif", "tiff"])
    func otherFormatsAreDecoded(format: String) async throws {
        let input = try await fixtures.convert(["-size", "1200x900", "gradient:yellow-purple"], to: "picture.\(format)")
        #expect(try ImageInfo.probe(input).format == (format == "tiff" ? "tiff" : format))
        try await scaleAndCheck(input, width: 1024, height: 768)
    }

    /// libvips starts without its format modules (about 16 ms of libraries a photo rarely needs);
    /// a format only a module reads (HEIF, JPEG XL) loads them the first time one is seen, and is
    /// probed and scaled as before.
    @Test(arguments: [("heic", "vips-heif.so"), ("jxl", "vips-jxl.so")])
    func moduleFormatsLoadTheModulesOnDemand(format: String, module: String) async throws {
        guard ImageFixtures.hasVipsModule(module) else { return }
        let png = try await fixtures.convert(["-size", "1200x900", "gradient:yellow-purple"], to: "module-\(format).png")
        let input = fixtures.url("picture.\(format)")
        try await ImageFixtures.run("vips", ["copy", png.path, input.path])
        #expect(try ImageInfo.probe(input).format == (format == "heic" ? "heif" : format))
        #expect(Vips.modulesLoaded)
        try await scaleAndCheck(input, width: 1024, height: 768)
        // Bytes in memory take the same path.
        #expect(try ImageInfo.probe(data: Data(contentsOf: input)).width == 1200)
    }

    // MARK: - Rejections

    func expectError(_ code: ImageError.Code, for url: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: ImageError.self, sourceLocation: sourceLocation) {
            try scaler.scale(fileAt: url)
        }
        #expect(error?.code == code, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.isEmpty == false, sourceLocation: sourceLocation)
        // The preview's probe refuses it the same way, except for damage only decoding finds.
        if code != .corrupt {
            #expect(throws: ImageError.self, sourceLocation: sourceLocation) { try ImageInfo.probe(url) }
        }
    }

    @Test func truncatedFilesAreCorrupt() async throws {
        let jpeg = try await fixtures.convert(["-size", "800x600", "xc:gray", "+noise", "Random"], to: "noise.jpg")
        let jpegBytes = try Data(contentsOf: jpeg)
        expectError(.corrupt, for: try fixtures.write(jpegBytes.prefix(jpegBytes.count / 2), to: "cut.jpg"))

        let png = try await fixtures.convert(["-size", "800x600", "xc:gray", "+noise", "Random"], to: "noise.png")
        let pngBytes = try Data(contentsOf: png)
        expectError(.corrupt, for: try fixtures.write(pngBytes.prefix(pngBytes.count / 2), to: "cut.png"))

        // Only the header survives: known format, nothing to decode.
        expectError(.corrupt, for: try fixtures.write(jpegBytes.prefix(40), to: "stub.jpg"))
    }

    @Test func garbageIsNotAnImage() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 1...255, using: &generator) })
        expectError(.notAnImage, for: try fixtures.write(noise, to: "noise.jpg"))
        expectError(.notAnImage, for: try fixtures.write(Data("name,type\nCafé,French\n".utf8), to: "notes.csv"))
    }

    @Test func emptyFileIsEmpty() throws {
        expectError(.empty, for: try fixtures.write(Data(), to: "empty.jpg"))
    }

    @Test func directoryIsRejected() throws {
        let folder = fixtures.url("photos.jpg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        expectError(.isDirectory, for: folder)
    }

    @Test func unreadablePathsAreRejected() async throws {
        expectError(.unreadable, for: fixtures.url("missing.jpg"))

        let dangling = fixtures.url("dangling.jpg")
        try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: fixtures.url("gone.jpg"))
        expectError(.unreadable, for: dangling)

        // A FIFO would block a reader forever; it must be refused without opening it.
        let fifo = fixtures.url("pipe.jpg")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        expectError(.unreadable, for: fifo)

        // chmod 000 bites only when not root.
        let locked = try await fixtures.convert(["-size", "10x10", "xc:red"], to: "locked.jpg")
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)
        if getuid() != 0 { expectError(.unreadable, for: locked) }
    }

    @Test func fileOver50MBIsTooLarge() async throws {
        let small = try await fixtures.convert(["-size", "64x64", "xc:red"], to: "seed.jpg")
        let large = fixtures.url("huge.jpg")
        try FileManager.default.copyItem(at: small, to: large)
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(ImageScaler.defaultMaxFileBytes + 1))  // sparse: no disk used
        try handle.close()
        // The size is checked before any byte is read: 50 MB of zeros would be `.corrupt` or `.notAnImage`.
        expectError(.tooLarge, for: large)
    }

    /// A real 64×64 JPEG whose SOF header is patched to claim 30000×30000 (900 megapixels).
    @Test func decompressionBombIsRejectedFromItsHeader() async throws {
        let seed = try await fixtures.convert(["-size", "64x64", "xc:red"], to: "seed.jpg")
        var bytes = try Data(contentsOf: seed)
        let sof = try #require(Self.startOfFrame(in: bytes))
        let side: [UInt8] = [UInt8(30000 >> 8), UInt8(30000 & 0xFF)]
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: side + side)
        let bomb = try fixtures.write(bytes, to: "bomb.jpg")

        // Decoding 900 megapixels would need gigabytes; the process's peak memory must not move that far.
        let peakBefore = Self.peakResidentBytes()
        expectError(.tooManyPixels, for: bomb)
        #expect(Self.peakResidentBytes() - peakBefore < 256 << 20)
        // The header is read, so the form can say what the file claims.
        let error = #expect(throws: ImageError.self) { try ImageInfo.probe(bomb) }
        #expect(error?.message.contains("30000×30000") == true)
    }

    @Test func pixelLimitIsConfigurable() async throws {
        let input = try await fixtures.convert(["-size", "2000x1000", "xc:red"], to: "two-mp.jpg")
        let strict = ImageScaler(maxPixels: 1_000_000)
        let error = #expect(throws: ImageError.self) { try strict.scale(fileAt: input) }
        #expect(error?.code == .tooManyPixels)
    }

    @Test func unwritableOutputIsWriteFailed() async throws {
        let input = try await fixtures.convert(["-size", "100x100", "xc:red"], to: "red.jpg")
        let error = #expect(throws: ImageError.self) {
            try scaler.scale(fileAt: input, to: fixtures.url("no/such/dir/out.jpg"))
        }
        #expect(error?.code == .writeFailed)
    }

    @Test func scalesConcurrentlyFromManyThreads() async throws {
        let input = try await fixtures.convert(["-size", "2400x1800", "gradient:red-yellow"], to: "shared.jpg")
        let broken = try fixtures.write(Data("not an image".utf8), to: "broken.jpg")
        let scaler = scaler
        let results = await withTaskGroup(of: (Bool, Int).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let file = index.isMultiple(of: 4) ? broken : input
                    do { return (true, try ImageInfo.probe(data: try scaler.scale(fileAt: file)).width) }
                    catch { return (false, 0) }
                }
            }
            return await group.reduce(into: [(Bool, Int)]()) { $0.append($1) }
        }
        #expect(results.filter { $0.0 }.count == 6)
        #expect(results.filter { $0.0 }.allSatisfy { $0.1 == 1024 })
    }

    static func startOfFrame(in bytes: Data) -> Int? {
        let base = bytes.startIndex
        var index = base + 2
        while index + 4 < bytes.endIndex {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            if marker == 0xC0 || marker == 0xC2 { return index - base }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 2 + length
        }
        return nil
    }

    /// The process's peak resident set size so far (getrusage's ru_maxrss, in KiB on Linux).
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
