// Stand-in for UIKit (the parts `Platform/AppleLifecycle.swift` uses on iOS), from
// developer.apple.com/documentation/uikit. Type-checked against, never run.
@_exported import Foundation

/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier
/// (`struct UIBackgroundTaskIdentifier`: `RawRepresentable` over `Int`, `Hashable`, `Sendable`).
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    /// `init(rawValue: Int)`
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

/// https://developer.apple.com/documentation/uikit/uiapplication
/// `@MainActor class UIApplication : UIResponder` (the responder chain is left out).
@MainActor
open class UIApplication {
    private init() {}

    /// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/value(forkey:)
    /// `func value(forKey key: String) -> Any?` (NSKeyValueCoding, on NSObject, which UIApplication
    /// inherits through NSResponder/UIResponder). A root class's instance methods are class methods
    /// too, so the class object answers it: `UIApplication.value(forKey: "sharedApplication")`.
    nonisolated open class func value(forKey key: String) -> Any? { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    /// `class var shared: UIApplication { get }`
    open class var shared: UIApplication { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/state-swift.enum
    public enum State: Int, Sendable {
        case active = 0
        case inactive = 1
        case background = 2
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/applicationstate
    /// `var applicationState: UIApplication.State { get }`
    open var applicationState: UIApplication.State { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/didbecomeactivenotification
    /// `nonisolated class let didBecomeActiveNotification: NSNotification.Name`
    public nonisolated static let didBecomeActiveNotification = NSNotification.Name("UIApplicationDidBecomeActiveNotification")
    /// https://developer.apple.com/documentation/uikit/uiapplication/didenterbackgroundnotification
    public nonisolated static let didEnterBackgroundNotification = NSNotification.Name("UIApplicationDidEnterBackgroundNotification")
    /// https://developer.apple.com/documentation/uikit/uiapplication/willterminatenotification
    public nonisolated static let willTerminateNotification = NSNotification.Name("UIApplicationWillTerminateNotification")

    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)
    /// `nonisolated func beginBackgroundTask(withName taskName: String?,
    ///     expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier`
    public nonisolated func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier {
        fatalError("stand-in")
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:)
    /// `nonisolated func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier)`
    public nonisolated func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {
        fatalError("stand-in")
    }
}
