/// Maps the colours a view asks for onto what the terminal can show.
///
/// Pure functions, so the terminal adapter stays thin and the mapping is tested
/// without a terminal:
///
/// ```swift
/// ColorPalette.terminalIndex(for: .rgb(255, 0, 0), mode: .colors256) // 196
/// ColorPalette.terminalIndex(for: .rgb(255, 0, 0), mode: .colors8)   // 1
/// ColorPalette.terminalIndex(for: .default, mode: .colors8)          // -1
/// ColorPalette.terminalIndex(for: .indexed(1), mode: .none)          // nil
/// ```
package enum ColorPalette {
    /// The six channel levels of xterm's 6×6×6 colour cube (indices 16–231).
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// xterm's default RGB for the 16 basic colours.
    static let basic: [(Int, Int, Int)] = [
        (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0),
        (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
        (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0),
        (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
    ]

    /// The palette index to use for `color` in `mode`.
    ///
    /// - Returns: `-1` for the terminal's own default colour, `nil` when the mode shows
    ///   no colour at all, otherwise an index below 256, 16 or 8.
    package static func terminalIndex(for color: Color, mode: ColorMode) -> Int? {
        if mode == .none { return nil }
        switch color {
        case .default:
            return -1
        case .indexed(let index):
            switch mode {
            case .colors256: return Int(index)
            case .colors16: return index < 16 ? Int(index) : nearestBasic(rgb(ofIndex: index), count: 16)
            case .colors8:
                if index < 8 { return Int(index) }
                if index < 16 { return Int(index) - 8 }
                return nearestBasic(rgb(ofIndex: index), count: 8)
            case .none: return nil
            }
        case .rgb(let r, let g, let b):
            let value = (Int(r), Int(g), Int(b))
            switch mode {
            case .colors256: return nearest256(value)
            case .colors16: return nearestBasic(value, count: 16)
            case .colors8: return nearestBasic(value, count: 8)
            case .none: return nil
            }
        }
    }

    /// The xterm RGB value of a palette index.
    package static func rgb(ofIndex index: UInt8) -> (Int, Int, Int) {
        let i = Int(index)
        if i < 16 { return basic[i] }
        if i >= 232 {
            let level = 8 + (i - 232) * 10
            return (level, level, level)
        }
        let cube = i - 16
        return (cubeLevels[cube / 36], cubeLevels[(cube / 6) % 6], cubeLevels[cube % 6])
    }

    /// The nearest entry of the 6×6×6 cube or the grey ramp (16–255).
    ///
    /// The basic colours 0–15 are left out on purpose: terminal themes redefine them.
    package static func nearest256(_ color: (Int, Int, Int)) -> Int {
        func cubeStep(_ v: Int) -> Int { v < 48 ? 0 : (v < 115 ? 1 : min(5, (v - 35) / 40)) }
        let (r, g, b) = color
        let (cr, cg, cb) = (cubeStep(r), cubeStep(g), cubeStep(b))
        let cubeIndex = 16 + 36 * cr + 6 * cg + cb
        let cubeDistance = distance(color, (cubeLevels[cr], cubeLevels[cg], cubeLevels[cb]))

        let average = (r + g + b) / 3
        let greyStep = average > 238 ? 23 : max(0, (average - 3) / 10)
        let grey = 8 + greyStep * 10
        let greyDistance = distance(color, (grey, grey, grey))
        return greyDistance < cubeDistance ? 232 + greyStep : cubeIndex
    }

    /// The nearest of the first `count` (8 or 16) basic colours, by their xterm RGB.
    ///
    /// Greys go by lightness alone: by plain distance a mid grey is nearer yellow
    /// (205, 205, 0) than white, which is not what anyone sees.
    package static func nearestBasic(_ color: (Int, Int, Int), count: Int) -> Int {
        let (r, g, b) = color
        if max(r, g, b) - min(r, g, b) < 32 {
            let lightness = (r + g + b) / 3
            if count >= 16 {
                return lightness < 48 ? 0 : (lightness < 170 ? 8 : (lightness < 240 ? 7 : 15))
            }
            return lightness < 80 ? 0 : 7
        }
        var best = 0
        var bestDistance = Int.max
        for index in 0..<min(count, basic.count) {
            let d = distance(color, basic[index])
            if d < bestDistance { (best, bestDistance) = (index, d) }
        }
        return best
    }

    /// Chooses the colour mode from `--color`, `NO_COLOR` and what the terminal supports.
    ///
    /// - Parameters:
    ///   - requested: the `--color` value, or `nil` for `auto`.
    ///   - noColor: the `NO_COLOR` environment value; any non-empty value turns colour off
    ///     under `auto`. An explicit `--color` wins, as no-color.org recommends.
    ///   - terminalColors: the terminal's colour count (terminfo `colors`; -1 or 0 for none).
    ///     An explicit request is still capped by it, since ncurses cannot show more.
    package static func resolveMode(requested: ColorMode?, noColor: String?, terminalColors: Int) -> ColorMode {
        let supported = mode(forColorCount: terminalColors)
        guard let requested else {
            if let noColor, !noColor.isEmpty { return .none }
            return supported
        }
        return rank(requested) <= rank(supported) ? requested : supported
    }

    /// The richest mode a terminal with `count` colours can show.
    package static func mode(forColorCount count: Int) -> ColorMode {
        switch count {
        case 256...: .colors256
        case 16...: .colors16
        case 8...: .colors8
        default: .none
        }
    }

    private static func rank(_ mode: ColorMode) -> Int {
        switch mode {
        case .none: 0
        case .colors8: 1
        case .colors16: 2
        case .colors256: 3
        }
    }

    private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let (dr, dg, db) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        return dr * dr + dg * dg + db * db
    }
}
