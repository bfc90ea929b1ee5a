#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the system's socket calls, so the server code reads as what it does.
///
/// Every descriptor is opened close-on-exec (`SOCK_CLOEXEC`, `accept4`), so a test that spawns a
/// child process does not leak the server's sockets into it, and every send passes
/// `MSG_NOSIGNAL`, so a client that goes away gives `EPIPE` instead of killing the process.
enum Socket {
    /// A failed system call, with `errno`.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    #if os(Linux)
    private static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// 127.0.0.1 in host byte order: where every listener binds unless told otherwise.
    static let loopback: UInt32 = 0x7F00_0001

    /// The IPv4 address `text` spells in dotted form (`127.0.0.1`, `0.0.0.0`, `192.168.1.20`),
    /// in host byte order; `nil` for anything else (a name, IPv6, a typo).
    static func ipv4Address(_ text: String) -> UInt32? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return UInt32(bigEndian: address.s_addr)
    }

    /// Opens a TCP listener on `address` (127.0.0.1 unless asked: loopback only, never a public
    /// interface by default).
    /// - Parameters:
    ///   - port: The port, or 0 for one the system picks.
    ///   - address: The IPv4 address in host byte order; `0` (0.0.0.0) is every interface.
    /// - Returns: The descriptor and the port actually bound.
    static func openListener(port: Int, address: UInt32 = loopback) throws -> (descriptor: Int32, port: Int) {
        let (descriptor, bound) = try bindAddress(port: port, address: address)
        try startListening(descriptor)
        return (descriptor, bound)
    }

    /// Makes a bound socket listen; closes it when that fails.
    static func startListening(_ descriptor: Int32) throws {
        guard listen(descriptor, 128) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "listen", code: code)
        }
    }

    /// Binds a TCP socket to `address` (127.0.0.1 unless asked) without listening: it holds the
    /// port, and a connection to it is refused.
    /// - Parameters:
    ///   - port: The port, or 0 for one the system picks.
    ///   - address: The IPv4 address in host byte order.
    /// - Returns: The descriptor and the port actually bound.
    static func bindAddress(port: Int, address host: UInt32 = loopback) throws -> (descriptor: Int32, port: Int) {
        guard (0...65_535).contains(port) else { throw Failure(call: "bind (port \(port) out of range)", code: EINVAL) }
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        setCloseOnExecAndNoSigpipe(descriptor)
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(host).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind \(dotted(host)):\(port)", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "getsockname", code: code)
        }
        return (descriptor, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// `address` (host byte order) in dotted form, for messages.
    static func dotted(_ address: UInt32) -> String {
        "\(address >> 24).\((address >> 16) & 0xFF).\((address >> 8) & 0xFF).\(address & 0xFF)"
    }

    /// Accepts one connection, close-on-exec; `nil` on a transient failure.
    static func accept(_ listener: Int32) -> Int32? {
        #if os(Linux)
        let descriptor: Int32
        if let accept4 = linuxAccept4 {
            descriptor = accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
        } else {
            descriptor = Glibc.accept(listener, nil, nil)
            if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        #else
        let descriptor = Darwin.accept(listener, nil, nil)
        #endif
        guard descriptor >= 0 else { return nil }
        setCloseOnExecAndNoSigpipe(descriptor)
        return descriptor
    }

    /// A connected pair of sockets, close-on-exec: the server's stop signal.
    static func pair() throws -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, streamType, 0, &descriptors) == 0 else { throw Failure(call: "socketpair", code: errno) }
        setCloseOnExecAndNoSigpipe(descriptors[0])
        setCloseOnExecAndNoSigpipe(descriptors[1])
        return (descriptors[0], descriptors[1])
    }

    #if os(Linux)
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32

    /// glibc's `accept4`, which the Glibc module does not export (it is declared only under
    /// `_GNU_SOURCE`); looked up once in the process's own symbols. Every glibc since 2.10 has it,
    /// so the `accept` + `fcntl` fallback (not atomic against a concurrent `fork`) is never taken
    /// in practice.
    private static let linuxAccept4: Accept4? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "accept4") else { return nil }
        // The raw pointer is glibc's accept4, whose C signature Accept4 spells.
        return unsafeBitCast(symbol, to: Accept4.self)
    }()
    #endif

    /// On Darwin, where `SOCK_CLOEXEC` and `MSG_NOSIGNAL` do not exist, sets the equivalents.
    private static func setCloseOnExecAndNoSigpipe(_ descriptor: Int32) {
        #if !os(Linux)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// What a wait on a socket ended with.
    enum Readiness { case ready, stopped, timedOut }

    /// Waits until `descriptor` is ready for `events`, the stop socket becomes readable, or the
    /// timeout passes. A negative timeout waits without limit.
    static func wait(_ descriptor: Int32, for events: Int16, stop: Int32, timeoutMilliseconds: Int32 = -1) -> Readiness {
        var fds = [pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, nfds_t(fds.count), timeoutMilliseconds)
            if result < 0 {
                if errno == EINTR { continue }
                return .stopped
            }
            if result == 0 { return .timedOut }
            if fds[1].revents != 0 { return .stopped }
            return .ready
        }
    }

    /// Waits `duration` unless the stop socket fires first. Returns false if stopped.
    static func pause(_ duration: Duration, stop: Int32) -> Bool {
        guard duration > .zero else { return true }
        let (seconds, attoseconds) = duration.components
        // Clamped first, so that an absurd duration cannot overflow the arithmetic.
        let clampedSeconds = min(max(seconds, 0), 2_000_000)
        let milliseconds = clampedSeconds * 1_000 + (max(attoseconds, 0) + 999_999_999_999_999) / 1_000_000_000_000_000
        var fds = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while true {
            let result = poll(&fds, 1, Int32(milliseconds))
            if result < 0, errno == EINTR { continue }  // a rare signal: the pause ends a little early
            return result == 0
        }
    }

    /// Reads what is available into `buffer`. Returns the count, 0 at end of stream, nil on error.
    static func receive(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            return count < 0 ? nil : count
        }
    }

    /// Whether bytes are waiting to be read (false at end of stream or on error); reads nothing.
    static func hasPendingBytes(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
            if count < 0, errno == EINTR { continue }
            return count > 0
        }
    }

    /// Sends all of `bytes` (one `send` call unless the kernel takes only part). Returns false if
    /// the peer went away or the server is stopping.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], stop: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return send(descriptor, base + offset, raw.count - offset, sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                guard wait(descriptor, for: Int16(POLLOUT), stop: stop) == .ready else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// Closes after an answer that ends the connection: stops sending, then drains what the
    /// client still sends (briefly), so that unread bytes do not turn the close into a reset that
    /// could destroy the answer before the client reads it.
    static func closeGracefully(_ descriptor: Int32, stop: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var drained = 0
        while drained < 16 * 1024 * 1024,
              wait(descriptor, for: Int16(POLLIN), stop: stop, timeoutMilliseconds: 500) == .ready,
              let count = receive(descriptor, into: &buffer), count > 0 {
            drained += count
        }
        close(descriptor)
    }
}
