// Stand-in for CoreGraphics (the parts `Platform/AppleLifecycle.swift` uses on macOS), from
// developer.apple.com/documentation/coregraphics. Type-checked against, never run.

/// https://developer.apple.com/documentation/corefoundation/cftimeinterval
public typealias CFTimeInterval = Double

/// https://developer.apple.com/documentation/coregraphics/cgeventsourcestateid
/// (`enum CGEventSourceStateID`, imported from C with an `Int32` raw value).
public enum CGEventSourceStateID: Int32, Sendable {
    case privateState = -1
    case combinedSessionState = 0
    case hidSystemState = 1
}

/// https://developer.apple.com/documentation/coregraphics/cgeventtype
/// (`enum CGEventType`, a C enum with a `UInt32` raw value: `init?(rawValue:)`).
public enum CGEventType: UInt32, Sendable {
    case null = 0
    case leftMouseDown = 1
    case keyDown = 10
    case tapDisabledByTimeout = 0xFFFF_FFFE
    case tapDisabledByUserInput = 0xFFFF_FFFF
}

/// https://developer.apple.com/documentation/coregraphics/cgeventsource
public final class CGEventSource {
    private init() {}

    /// https://developer.apple.com/documentation/coregraphics/cgeventsource/secondssincelasteventtype(_:eventtype:)
    /// `class func secondsSinceLastEventType(_ stateID: CGEventSourceStateID, eventType: CGEventType) -> CFTimeInterval`
    public class func secondsSinceLastEventType(_ stateID: CGEventSourceStateID, eventType: CGEventType) -> CFTimeInterval {
        fatalError("stand-in")
    }
}
