import Foundation
import SimpleDataLogsTesting

/// The local ingest, brought up, down and made to flap on one fixed port, so every child (and
/// the final flush) keeps the same endpoint. What each instance received is kept when it stops.
@MainActor
final class IngestControl {
    enum Phase: String, Sendable, CaseIterable {
        case up, down, flapping
    }

    let port: Int
    private var current: LocalIngest?
    /// What stopped instances received, in order.
    private var retiredRaw: [ReceivedEvent] = []
    private var retiredSummaries: [LocalIngest.Summary] = []
    private(set) var phase: Phase = .up
    private(set) var restarts = 0

    init() throws {
        let first = try LocalIngest(configuration: .init(port: 0))
        port = first.port
        current = first
    }

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Moves to `phase`: up (normal answers), down (nothing listens: connection refused) or
    /// flapping (up, with a script of failures, refreshed by ``refreshFlapping(using:)``).
    func enter(_ phase: Phase) async throws {
        self.phase = phase
        switch phase {
        case .up, .flapping:
            try await bringUp()
            current?.script([])
        case .down:
            stopCurrent()
        }
    }

    /// In the flapping phase, a fresh script for the next child: about half the requests fail,
    /// in every way the answer table knows as "retry later" (503, 500, 429, a reset connection,
    /// and a request counted by the ingest whose answer never comes back).
    func refreshFlapping(using random: inout some RandomNumberGenerator) {
        guard phase == .flapping, let current else { return }
        var answers: [ScriptedAnswer] = []
        // A diagnostic: SDL_RELIABILITY_FLAP=normal,drop,reset,503,… (a comma-separated list,
        // cycled) replaces the random script.
        if let list = ProcessInfo.processInfo.environment["SDL_RELIABILITY_FLAP"] {
            let cycle: [ScriptedAnswer] = list.split(separator: ",").map { name in
                switch name {
                case "drop": .dropResponseAfterCounting
                case "reset": .closeBeforeReading
                case "normal": .normal()
                default: .status(Int(name) ?? 503)
                }
            }
            current.script((0..<24).map { cycle[$0 % cycle.count] })
            return
        }
        for _ in 0..<24 {
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45: answers.append(.normal())
            case 45..<65: answers.append(.status(503))
            case 65..<70: answers.append(.status(500))
            case 70..<75: answers.append(.status(429))
            case 75..<88: answers.append(.closeBeforeReading)
            default: answers.append(.dropResponseAfterCounting)
            }
        }
        current.script(answers)
    }

    private func bringUp() async throws {
        guard current == nil else { return }
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                current = try LocalIngest(configuration: .init(port: port))
                restarts += 1
                return
            } catch {
                lastError = error
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? SpawnError(message: "could not listen on \(port) again")
    }

    private func stopCurrent() {
        guard let current else { return }
        current.stop()
        retiredRaw += current.rawEvents
        retiredSummaries.append(current.summary)
        self.current = nil
    }

    /// Stops the ingest for good.
    func stop() { stopCurrent() }

    /// Every event of every counted request, of every instance so far.
    var rawEvents: [ReceivedEvent] { retiredRaw + (current?.rawEvents ?? []) }

    /// The instances' counters added up.
    var summary: LocalIngest.Summary {
        var total = LocalIngest.Summary()
        for summary in retiredSummaries + (current.map { [$0.summary] } ?? []) {
            total.requests += summary.requests
            total.batches += summary.batches
            total.accepted += summary.accepted
            total.duplicates += summary.duplicates
            total.rejected += summary.rejected
            total.rawEvents += summary.rawEvents
            total.replayedBatches += summary.replayedBatches
            total.closedBeforeReading += summary.closedBeforeReading
            total.droppedResponses += summary.droppedResponses
            for (status, count) in summary.byStatus { total.byStatus[status, default: 0] += count }
        }
        return total
    }
}
