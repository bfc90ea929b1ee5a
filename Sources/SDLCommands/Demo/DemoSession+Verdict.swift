import SimpleDataLogs
import SimpleDataLogsTesting

extension DemoSession {
    /// Chapter 5: shuts the client down, shows its counters, and checks every `seq` against
    /// what the ingest counted (deduplicated) and what it was sent (repeats included).
    func verdict(failure: String?) async -> DemoResult {
        await client.shutdown(timeLimit: .seconds(2))
        var result = DemoResult()
        result.tracked = nextSeq
        result.counters = client.counters
        result.ingest = ingest.summary
        result.failure = failure
        var counted = [Int](repeating: 0, count: nextSeq)
        var sent = [Int](repeating: 0, count: nextSeq)
        for event in ingest.receivedEvents { if let seq = Self.seq(of: event), seq < nextSeq { counted[seq] += 1 } }
        for event in ingest.rawEvents { if let seq = Self.seq(of: event), seq < nextSeq { sent[seq] += 1 } }
        result.missing = counted.indices.filter { counted[$0] == 0 }
        result.doubled = counted.indices.filter { counted[$0] > 1 || sent[$0] > 1 }

        let counters = result.counters
        console.out("5. The delivery counters (client.counters), after shutdown()")
        console.out("   tracked \(Self.grouped(counters.tracked))   delivered \(Self.grouped(counters.delivered))   pending \(counters.pending) (memory \(counters.pendingInMemory), disk \(counters.pendingOnDisk))")
        console.out("   skipped (backlog) \(counters.skippedBacklog)   invalid \(counters.invalid)   rejected by the ingest \(counters.rejectedByIngest)   set aside \(counters.setAside)   evicted \(counters.evictedByCaps)")
        console.out("   conservation law: \(counters.isBalanced ? "balanced" : "UNBALANCED") (tracked + recovered = every outcome added up)")
        let summary = result.ingest
        let statuses = summary.byStatus.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
        console.out("   the ingest: \(Self.grouped(summary.accepted)) events counted, \(summary.duplicates) duplicates, \(summary.requests) requests (\(statuses))")
        console.out("")
        if let failure {
            console.err("sdl demo: FAILED: \(failure)")
        }
        if !result.missing.isEmpty {
            console.err("sdl demo: FAILED: \(result.missing.count) events never arrived (seq \(result.missing.prefix(10).map(String.init).joined(separator: ", ")))")
        }
        if !result.doubled.isEmpty {
            console.err("sdl demo: FAILED: \(result.doubled.count) events arrived more than once (seq \(result.doubled.prefix(10).map(String.init).joined(separator: ", ")))")
        }
        if result.succeeded {
            console.out("Every one of the \(Self.grouped(counters.tracked)) events arrived exactly once (\(Self.grouped(result.tracked)) tracked by the demo, the rest autocaptured). The outbox folder is removed.")
        } else if failure == nil && result.missing.isEmpty && result.doubled.isEmpty {
            console.err("sdl demo: FAILED: the counters disagree with the ingest: \(counters)")
        }
        return result
    }

    /// The `seq` property the demo put on the event.
    static func seq(of event: ReceivedEvent) -> Int? {
        if case .int(let seq)? = event.properties["seq"], seq >= 0 { return Int(seq) }
        return nil
    }
}
