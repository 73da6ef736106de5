import ArgumentParser
import FoodPinCore

/// `--images auto|kitty|sixel|iterm|symbols|none`.
extension ImageModeDecision.Choice: ExpressibleByArgument {}
