extension SimpleDataLogs {
    /// Why a ``Transport`` got no answer. The uploader backs off on every kind; the kind is for its
    /// log line and counters, and tells a request that surely never arrived (``Kind/cannotConnect``)
    /// from one that may have (the others).
    public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, coarsely.
        public enum Kind: Sendable, Hashable {
            /// No connection was made: refused, host not found, offline. Nothing reached the server.
            case cannotConnect
            /// The library's timeout passed before the answer arrived.
            case timedOut
            /// The calling task was cancelled (the uploader's own deadline, or shutdown).
            case cancelled
            /// Anything else: the connection dropped mid-exchange, a TLS failure, a malformed answer.
            case other
        }

        /// What went wrong, coarsely.
        public var kind: Kind
        /// The library's description of the failure, for a log line.
        public var message: String

        /// Creates an error.
        /// - Parameters:
        ///   - kind: What went wrong.
        ///   - message: The library's description.
        public init(_ kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }

        /// Reads any error a transport threw: a ``TransportError`` stays as it is, a
        /// `CancellationError` is ``Kind/cancelled``, anything else is ``Kind/other``.
        /// - Parameter error: The error thrown.
        public init(classifying error: any Error) {
            switch error {
            case let known as TransportError: self = known
            case is CancellationError: self.init(.cancelled, message: "the request was cancelled")
            default: self.init(.other, message: String(describing: error))
            }
        }

        /// The kind and the message, for a log line.
        public var description: String { "\(kind): \(message)" }
    }
}
