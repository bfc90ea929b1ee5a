import Dispatch
import Foundation
import SimpleDataLogs
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What ``SocketServer`` asks of the server it runs: ``LocalIngest``'s ``IngestHandler``, or
/// ``LocalCollector``'s ``CollectorHandler``. Called on the server's own threads.
protocol SocketRequestHandler: Sendable {
    /// The body limit after decoding, in bytes (the wire limit is derived from it).
    var maxBodyBytes: Int { get }
    /// Whether to close a connection whose next request is starting, per a script.
    func shouldCloseBeforeReading() -> Bool
    /// Decides the answer to one complete request.
    func reply(to request: HTTPRequest) -> IngestHandler.Reply
    /// Answers a request that could not be parsed (the connection closes after it).
    func reply(to failure: HTTPRequestParser.Failure) -> HTTPResponse
}

/// The threads and sockets of ``LocalIngest`` (and ``LocalCollector``): one thread accepts, one thread per connection
/// reads, answers and loops for keep-alive.
///
/// Why threads of its own: every call here blocks (`poll`, `recv`, `send`, the scripted
/// delays), and blocking a thread of Swift's cooperative pool (two on our CI machines) would stall
/// every task in the test process, including the client under test.
///
/// Shutdown: ``stop()`` closes the write end of a socket pair that every blocking `poll` here
/// also watches, so each thread wakes, closes its own descriptors and leaves. No thread ever
/// closes another's descriptor, so there is no race on descriptor numbers being reused.
final class SocketServer: Sendable {
    /// The bound port.
    let port: Int
    private let listener: Int32
    private let stopReader: Int32
    private let stopWriter: Int32
    /// Readable (at end of stream) once held answers are released: like the stop pair, a
    /// socket pair whose writer is shut down, so every thread waiting on it wakes, now and later.
    private let releaseReader: Int32
    private let releaseWriter: Int32
    private let handler: any SocketRequestHandler
    private let threads = DispatchGroup()
    private let stopped = Locked(false)

    /// Binds `address`:`port` (127.0.0.1 unless asked) and starts the accepting thread.
    init(port: Int, address: UInt32 = Socket.loopback, handler: any SocketRequestHandler) throws {
        let (reader, writer) = try Socket.pair()
        let release: (reader: Int32, writer: Int32)
        do {
            release = try Socket.pair()
        } catch {
            close(reader)
            close(writer)
            throw error
        }
        do {
            (listener, self.port) = try FreshPort.listen(port: port, address: address)
        } catch {
            for descriptor in [reader, writer, release.reader, release.writer] { close(descriptor) }
            throw error
        }
        releaseReader = release.reader
        releaseWriter = release.writer
        stopReader = reader
        stopWriter = writer
        self.handler = handler
        startThread(name: "LocalIngest.accept \(self.port)") { [self] in acceptLoop() }
    }

    /// Wakes every thread, waits until all have left, and releases the descriptors. Idempotent.
    func stop() {
        let first: Bool = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = shutdown(stopWriter, Int32(SHUT_WR))
        threads.wait()
        close(stopWriter)
        close(stopReader)
        close(releaseWriter)
        close(releaseReader)
    }

    /// Lets every held answer go, and every later one at once.
    func releaseHeldAnswers() {
        _ = shutdown(releaseWriter, Int32(SHUT_WR))
    }

    private func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func acceptLoop() {
        defer { close(listener) }
        while Socket.wait(listener, for: Int16(POLLIN), stop: stopReader) == .ready {
            guard let connection = Socket.accept(listener) else {
                // Out of descriptors or an aborted handshake: back off a little rather than spin.
                _ = Socket.pause(.milliseconds(10), stop: stopReader)
                continue
            }
            // Checked under the lock that `stop()` sets, so no thread starts after `wait()`.
            let started: Bool = stopped.withLock { stopped in
                guard !stopped else { return false }
                startThread(name: "LocalIngest.connection") { [self] in serve(connection) }
                return true
            }
            if !started { close(connection) }
        }
    }

    /// Serves one connection until the client closes it, an answer ends it, or the server stops.
    private func serve(_ connection: Int32) {
        // Bodies are read whole before the 413 decision (so the answer is not lost to a reset);
        // beyond this wire cap the parser refuses early. Clamped so no configuration overflows it.
        let wireLimit = 2 * 1024 * 1024 + 4 * min(max(0, handler.maxBodyBytes), 64 * 1024 * 1024)
        var parser = HTTPRequestParser(limits: .init(maxBodyBytes: wireLimit))
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // True between requests: the next bytes belong to a new request, which the script may
        // close before reading (a pipelined request is already buffered, an idle one is awaited).
        var atRequestStart = true
        while true {
            if atRequestStart {
                atRequestStart = false
                if parser.isIdle {
                    guard Socket.wait(connection, for: Int16(POLLIN), stop: stopReader) == .ready,
                          Socket.hasPendingBytes(connection) else { break }
                }
                if handler.shouldCloseBeforeReading() { break }
            }
            switch parser.next() {
            case .needMoreData:
                guard Socket.wait(connection, for: Int16(POLLIN), stop: stopReader) == .ready,
                      let count = Socket.receive(connection, into: &buffer), count > 0 else {
                    close(connection)
                    return
                }
                parser.append(buffer[0..<count])
            case .head(let head):
                if head.expectsContinue, !Socket.sendAll(connection, HTTPResponse.continueBytes, stop: stopReader) {
                    close(connection)
                    return
                }
            case .request(let request):
                let reply = handler.reply(to: request)
                guard Socket.pause(reply.delay, stop: stopReader),
                      !reply.isHeld || Socket.wait(releaseReader, for: Int16(POLLIN), stop: stopReader) == .ready,
                      let response = reply.response else {
                    close(connection)
                    return
                }
                guard Socket.sendAll(connection, response.bytes, stop: stopReader) else {
                    close(connection)
                    return
                }
                if !response.keepAlive {
                    Socket.closeGracefully(connection, stop: stopReader)
                    return
                }
                atRequestStart = true
            case .failure(let failure):
                _ = Socket.sendAll(connection, handler.reply(to: failure).bytes, stop: stopReader)
                Socket.closeGracefully(connection, stop: stopReader)
                return
            }
        }
        close(connection)
    }
}
