// Stand-in for AppKit (the parts `Platform/AppleLifecycle.swift` uses on macOS), from
// developer.apple.com/documentation/appkit. AppKit re-exports Foundation and CoreGraphics.
// Type-checked against, never run.
@_exported import CoreGraphics
@_exported import Foundation

/// https://developer.apple.com/documentation/appkit/nsapplication
/// `@MainActor class NSApplication : NSResponder` (the responder chain is left out).
@MainActor
open class NSApplication {
    private init() {}

    /// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/value(forkey:)
    /// `func value(forKey key: String) -> Any?` (NSKeyValueCoding, on NSObject, which NSApplication
    /// inherits through NSResponder/UIResponder). A root class's instance methods are class methods
    /// too, so the class object answers it: `NSApplication.value(forKey: "sharedApplication")`.
    nonisolated open class func value(forKey key: String) -> Any? { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsapplication/shared
    /// `class var shared: NSApplication { get }`
    open class var shared: NSApplication { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsapplication/isactive
    /// `var isActive: Bool { get }`
    open var isActive: Bool { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsapplication/didbecomeactivenotification
    /// `class let didBecomeActiveNotification: NSNotification.Name` (main-actor isolated, as the
    /// class is; UIKit's are `nonisolated`)
    public static let didBecomeActiveNotification = NSNotification.Name("NSApplicationDidBecomeActiveNotification")
    /// https://developer.apple.com/documentation/appkit/nsapplication/didresignactivenotification
    public static let didResignActiveNotification = NSNotification.Name("NSApplicationDidResignActiveNotification")
    /// https://developer.apple.com/documentation/appkit/nsapplication/willterminatenotification
    public static let willTerminateNotification = NSNotification.Name("NSApplicationWillTerminateNotification")
}

/// https://developer.apple.com/documentation/appkit/nsworkspace
/// `class NSWorkspace : NSObject` (not main-actor isolated).
open class NSWorkspace {
    private init() {}

    /// https://developer.apple.com/documentation/appkit/nsworkspace/shared
    /// `class var shared: NSWorkspace { get }`
    open class var shared: NSWorkspace { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsworkspace/notificationcenter
    /// `var notificationCenter: NotificationCenter { get }`
    open var notificationCenter: NotificationCenter { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/appkit/nsworkspace/willsleepnotification
    /// `class let willSleepNotification: NSNotification.Name`
    public static let willSleepNotification = NSNotification.Name("NSWorkspaceWillSleepNotification")
}
