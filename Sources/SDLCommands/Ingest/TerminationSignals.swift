#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// SIGINT (Ctrl-C) and SIGTERM through `DispatchSourceSignal`, so a long-running command can end
/// cleanly: print its summary and exit 0 instead of dying mid-line.
///
/// Start watching, and await the start, before telling the user the command is ready: a
/// source's `resume()` returns before libdispatch has installed it in the kernel, and a signal
/// in that window is lost (ignored) or ends the process. The registration handlers close the
/// window. Deliberately not `Sendable` (it holds the sources): keep it in the function that
/// started it and hand out only ``signals``.
struct TerminationSignals {
    /// Each signal's number, as it arrives.
    let signals: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation
    private let sources: [any DispatchSourceSignal]
    private static let numbers = [SIGINT, SIGTERM]

    /// Starts watching and returns once both sources are installed; the default action of
    /// both signals is off until ``stop()``.
    init() async {
        (signals, continuation) = AsyncStream.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(4))
        let (registered, registration) = AsyncStream.makeStream(of: Void.self)
        let queue = DispatchQueue(label: "sdl.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in Self.numbers {
            // Ignored first, so the signal cannot end the process before the source sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let continuation = continuation
            source.setEventHandler { continuation.yield(number) }
            source.setRegistrationHandler { registration.yield() }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
        var installed = 0
        for await _ in registered {
            installed += 1
            if installed == Self.numbers.count { break }
        }
    }

    /// Stops watching and restores the default actions.
    func stop() {
        for source in sources { source.cancel() }
        continuation.finish()
        for number in Self.numbers { signal(number, SIG_DFL) }
    }
}

@available(*, unavailable)
extension TerminationSignals: Sendable {}
