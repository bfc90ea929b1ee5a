extension SimpleDataLogs {
    /// How much the SDK logs. Set it in `configure` or with the `SDL_LOG_LEVEL` environment variable
    /// (`debug`, `info`, `warning`, `error`, `off`); the default is ``warning``.
    public enum LogLevel: Int, Sendable, Hashable, Comparable, CaseIterable {
        /// Everything, including each batch sent.
        case debug
        /// Milestones: configured, recovered, paused, resumed.
        case info
        /// Something the app should fix or know about; the SDK carried on.
        case warning
        /// Something stopped working (a bad key, an unwritable folder); the SDK carried on as best it could.
        case error
        /// Nothing at all.
        case off

        /// Orders levels from ``debug`` to ``off``.
        public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Reads a level name as `SDL_LOG_LEVEL` spells it; `nil` for anything else.
        /// - Parameter name: `debug`, `info`, `warning`, `error` or `off`, in any case.
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            case "off", "none": self = .off
            default: return nil
            }
        }

        /// The level's name, as log lines print it.
        public var name: String {
            switch self {
            case .debug: return "debug"
            case .info: return "info"
            case .warning: return "warning"
            case .error: return "error"
            case .off: return "off"
            }
        }
    }
}
