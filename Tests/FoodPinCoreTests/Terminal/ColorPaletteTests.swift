import Testing
@testable import FoodPinCore

struct ColorPaletteTests {
    @Test func defaultColourIsTheTerminalsOwnInEveryColourMode() {
        for mode in [ColorMode.colors256, .colors16, .colors8] {
            #expect(ColorPalette.terminalIndex(for: .default, mode: mode) == -1)
        }
        #expect(ColorPalette.terminalIndex(for: .default, mode: .none) == nil)
    }

    @Test func noneModeHasNoColourAtAll() {
        for color in [Color.indexed(1), .indexed(200), .rgb(255, 0, 0)] {
            #expect(ColorPalette.terminalIndex(for: color, mode: .none) == nil)
        }
    }

    @Test func indexedColoursPassThroughAt256() {
        for index in [0, 7, 15, 16, 196, 231, 232, 255] {
            #expect(ColorPalette.terminalIndex(for: .indexed(UInt8(index)), mode: .colors256) == index)
        }
    }

    @Test(arguments: [
        // (r, g, b, expected xterm-256 index)
        (255, 0, 0, 196), (0, 255, 0, 46), (0, 0, 255, 21), (255, 255, 255, 231), (0, 0, 0, 16),
        (255, 135, 0, 208), (95, 135, 175, 67), (128, 128, 128, 244), (18, 18, 18, 233),
        (238, 238, 238, 255), (255, 105, 180, 205), (40, 40, 40, 235),
    ])
    func rgbMapsToNearestCubeOrGrey(r: Int, g: Int, b: Int, expected: Int) {
        #expect(ColorPalette.terminalIndex(for: .rgb(UInt8(r), UInt8(g), UInt8(b)), mode: .colors256) == expected)
    }

    @Test func everyPaletteEntryMapsBackToItselfOrAnEqualColour() {
        // An xterm colour's own RGB must map to an index with the same RGB (16–255).
        for index in 16...255 {
            let rgb = ColorPalette.rgb(ofIndex: UInt8(index))
            let nearest = ColorPalette.nearest256(rgb)
            let back = ColorPalette.rgb(ofIndex: UInt8(nearest))
            #expect(back == rgb, "index \(index) mapped to \(nearest)")
        }
    }

    @Test func paletteRGBMatchesXterm() {
        #expect(ColorPalette.rgb(ofIndex: 16) == (0, 0, 0))
        #expect(ColorPalette.rgb(ofIndex: 196) == (255, 0, 0))
        #expect(ColorPalette.rgb(ofIndex: 67) == (95, 135, 175))
        #expect(ColorPalette.rgb(ofIndex: 232) == (8, 8, 8))
        #expect(ColorPalette.rgb(ofIndex: 255) == (238, 238, 238))
        #expect(ColorPalette.rgb(ofIndex: 9) == (255, 0, 0))
    }

    @Test(arguments: [
        // (r, g, b, nearest of 8, nearest of 16)
        (255, 0, 0, 1, 9), (200, 0, 0, 1, 1), (0, 200, 0, 2, 2), (255, 255, 0, 3, 11),
        (0, 0, 200, 4, 4), (250, 250, 250, 7, 15), (10, 10, 10, 0, 0), (255, 165, 0, 3, 3),
        (0, 200, 210, 6, 6), (128, 128, 128, 7, 8),
    ])
    func rgbMapsToNearestBasicColour(r: Int, g: Int, b: Int, of8: Int, of16: Int) {
        let color = Color.rgb(UInt8(r), UInt8(g), UInt8(b))
        #expect(ColorPalette.terminalIndex(for: color, mode: .colors8) == of8)
        #expect(ColorPalette.terminalIndex(for: color, mode: .colors16) == of16)
    }

    @Test func indexedColoursReduceToTheBasicPalette() {
        #expect(ColorPalette.terminalIndex(for: .indexed(3), mode: .colors8) == 3)
        #expect(ColorPalette.terminalIndex(for: .indexed(9), mode: .colors8) == 1)   // bright red → red
        #expect(ColorPalette.terminalIndex(for: .indexed(9), mode: .colors16) == 9)
        #expect(ColorPalette.terminalIndex(for: .indexed(196), mode: .colors8) == 1)
        #expect(ColorPalette.terminalIndex(for: .indexed(196), mode: .colors16) == 9)
        #expect(ColorPalette.terminalIndex(for: .indexed(46), mode: .colors8) == 2)
        #expect(ColorPalette.terminalIndex(for: .indexed(226), mode: .colors8) == 3)
        #expect(ColorPalette.terminalIndex(for: .indexed(232), mode: .colors8) == 0)  // near-black grey
        for index in 0...255 {
            let eight = ColorPalette.terminalIndex(for: .indexed(UInt8(index)), mode: .colors8) ?? -99
            let sixteen = ColorPalette.terminalIndex(for: .indexed(UInt8(index)), mode: .colors16) ?? -99
            #expect((0..<8).contains(eight))
            #expect((0..<16).contains(sixteen))
        }
    }

    @Test(arguments: [
        // (requested, NO_COLOR, terminal colours, expected)
        (nil, nil, 256, ColorMode.colors256),
        (nil, nil, 8, .colors8),
        (nil, nil, 16, .colors16),
        (nil, nil, 88, .colors16),
        (nil, nil, -1, ColorMode.none),
        (nil, nil, 0, ColorMode.none),
        (nil, "1", 256, ColorMode.none),
        (nil, "", 256, .colors256),          // empty NO_COLOR does not count
        (ColorMode.colors8, "1", 256, .colors8),  // an explicit --color wins over NO_COLOR
        (ColorMode.colors256, nil, 8, .colors8),  // … but cannot exceed the terminal
        (ColorMode.colors16, nil, 256, .colors16),
        (ColorMode.colors256, nil, -1, ColorMode.none),
        (ColorMode.none, nil, 256, ColorMode.none),
    ] as [(ColorMode?, String?, Int, ColorMode)])
    func modeResolution(requested: ColorMode?, noColor: String?, terminalColors: Int, expected: ColorMode) {
        #expect(ColorPalette.resolveMode(requested: requested, noColor: noColor, terminalColors: terminalColors) == expected)
    }
}
