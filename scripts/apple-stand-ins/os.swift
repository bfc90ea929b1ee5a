// Stand-in for the `os` module (the parts `Platform/OSLogSink.swift` and
// `Concurrency/Locked.swift` use), from developer.apple.com/documentation/os.
// Type-checked against, never run.

/// https://developer.apple.com/documentation/os/osallocatedunfairlock
/// `@frozen struct OSAllocatedUnfairLock<State>`, `Sendable` (Apple's is `@unchecked Sendable`
/// over its lock and buffer; this one has no storage, so it is `Sendable` plainly).
public struct OSAllocatedUnfairLock<State>: Sendable {
    /// https://developer.apple.com/documentation/os/osallocatedunfairlock/init(uncheckedstate:)
    /// `init(uncheckedState initialState: State)`
    public init(uncheckedState initialState: State) {}

    /// https://developer.apple.com/documentation/os/osallocatedunfairlock/withlockunchecked(_:)-7qywq
    /// `func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R`
    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R { fatalError("stand-in") }
}

extension OSAllocatedUnfairLock where State: Sendable {
    /// https://developer.apple.com/documentation/os/osallocatedunfairlock/init(initialstate:)
    /// `init(initialState: State)`, where `State : Sendable`.
    public init(initialState: State) {}

    /// https://developer.apple.com/documentation/os/osallocatedunfairlock/withlock(_:)
    /// `func withLock<R>(_ body: @Sendable (inout State) throws -> R) rethrows -> R where R : Sendable`
    public func withLock<R: Sendable>(_ body: @Sendable (inout State) throws -> R) rethrows -> R { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/os/oslogprivacy
public struct OSLogPrivacy: Sendable {
    /// https://developer.apple.com/documentation/os/oslogprivacy/auto
    public static var auto: OSLogPrivacy { OSLogPrivacy() }
    /// https://developer.apple.com/documentation/os/oslogprivacy/public
    public static var `public`: OSLogPrivacy { OSLogPrivacy() }
    /// https://developer.apple.com/documentation/os/oslogprivacy/private
    public static var `private`: OSLogPrivacy { OSLogPrivacy() }
}

/// https://developer.apple.com/documentation/os/oslogstringalignment
public struct OSLogStringAlignment: Sendable {
    /// https://developer.apple.com/documentation/os/oslogstringalignment/none
    public static var none: OSLogStringAlignment { OSLogStringAlignment() }
}

/// https://developer.apple.com/documentation/os/osloginterpolation
/// `@frozen struct OSLogInterpolation : StringInterpolationProtocol`
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}

    /// https://developer.apple.com/documentation/os/osloginterpolation/appendinterpolation(_:align:privacy:)-84m60
    /// `mutating func appendInterpolation(_ argumentString: @autoclosure @escaping () -> String,
    ///     align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto)`
    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {}
}

/// https://developer.apple.com/documentation/os/oslogmessage
/// `struct OSLogMessage : ExpressibleByStringInterpolation, ExpressibleByStringLiteral`
public struct OSLogMessage: ExpressibleByStringInterpolation {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}

/// https://developer.apple.com/documentation/os/logger
/// `struct Logger`. `Sendable` here: the page's declaration line does not list conformances, and
/// the SDK's `Logger` is shared across threads; if Apple's were not `Sendable`, `OSLogSink` would
/// need this check to be wrong to pass, so the hosted macOS build is the word on it.
public struct Logger: Sendable {
    /// https://developer.apple.com/documentation/os/logger/init(subsystem:category:)
    /// `init(subsystem: String, category: String)`
    public init(subsystem: String, category: String) {}

    /// https://developer.apple.com/documentation/os/logger/debug(_:)
    public func debug(_ message: OSLogMessage) {}
    /// https://developer.apple.com/documentation/os/logger/info(_:)
    public func info(_ message: OSLogMessage) {}
    /// https://developer.apple.com/documentation/os/logger/warning(_:)
    public func warning(_ message: OSLogMessage) {}
    /// https://developer.apple.com/documentation/os/logger/error(_:)
    public func error(_ message: OSLogMessage) {}
}
