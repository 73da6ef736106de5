import Testing
import FoodPinCore

struct KeyDecodingTests {
    @Test(arguments: [
        (13, Key.enter), (10, .enter), (9, .tab), (27, .escape), (127, .backspace), (8, .backspace),
        (1, .control("a")), (3, .control("c")), (19, .control("s")), (21, .control("u")),
        (23, .control("w")), (26, .control("z")),
        (0x61, .character("a")), (0x47, .character("G")), (0x20, .character(" ")), (0x3F, .character("?")),
        (0xE9, .character("é")), (0x6771, .character("東")), (0x1F35C, .character("🍜")),
    ] as [(UInt32, Key)])
    func decodesCharacterCodes(code: UInt32, expected: Key) {
        #expect(Key(terminalCharacter: code) == expected)
    }

    @Test(arguments: [0, 0x1C, 0x1F, 0x80, 0x9B, 0xD800, 0x110000] as [UInt32])
    func ignoresCodesThatAreNoKey(code: UInt32) {
        #expect(Key(terminalCharacter: code) == nil)
    }
}
