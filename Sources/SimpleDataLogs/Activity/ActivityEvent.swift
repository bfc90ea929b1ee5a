/// A change in whether someone is using the app, reported by the platform adapters (UIKit,
/// AppKit) or by the app itself through ``SimpleDataLogsClient/reportActivity(_:)`` — for
/// example a Linux desktop app, which has no system lifecycle the SDK could observe.
public enum ActivityEvent: Sendable, Hashable {
    /// The app came to the front (became active).
    case foreground
    /// The app left the front (resigned active, or went to the background).
    case background
    /// Keyboard or mouse input reached the app (a menu-bar hotkey counts): the app counts as
    /// active for the next 10 seconds even when not in front.
    case userInput
}
