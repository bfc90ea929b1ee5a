extension SimpleDataLogsClient {
    /// How much a client may hold: on disk (the outbox) and in memory (the backlog of events
    /// tracked but not yet written to the journal).
    ///
    /// The defaults, ``standard``, are the product's numbers, sized for an app. A busy server
    /// uses ``server``, or its own numbers:
    ///
    /// ```swift
    /// var configuration = SimpleDataLogsClient.Configuration.server(ingestKey: "sdl_sec_…")
    /// configuration.limits.outboxBytes = 2_000_000_000   // ride out a longer outage
    /// ```
    ///
    /// A value below its floor (zero, negative, or too small to hold one request) is replaced by
    /// the value of the profile the limits came from (``server``'s for limits made from it,
    /// ``standard``'s otherwise), with one log line at `configure`.
    public struct Limits: Sendable, Equatable {
        /// The most events the outbox keeps on disk; past it the oldest batches are dropped, and
        /// counted in ``DeliveryCounters/evictedByCaps``. 10,000 by default.
        public var outboxEvents: Int
        /// The most bytes the outbox keeps on disk. 10 MB by default; at least 262,144 (one request).
        public var outboxBytes: Int
        /// The most batch files the outbox keeps on disk. 500 by default.
        public var outboxFiles: Int
        /// The most events tracked but not yet written; past it `track()` skips new events (counted
        /// in ``DeliveryCounters/skippedBacklog``) and the waiting form of `track` waits. 5,000 by default.
        public var backlogEvents: Int
        /// The most memory those events may hold, estimated generously from their names and
        /// properties, so that a burst of large events is bounded by bytes, not only by count.
        /// 16 MiB by default; at least 262,144.
        public var backlogBytes: Int
        /// Whose values replace a value below its floor: ``server``'s for limits made from it, so
        /// one nonsense value in a server's limits does not shrink it to an app's.
        private var fallsBackToServer = false

        /// Creates limits; every parameter defaults to the product's number.
        /// - Parameters:
        ///   - outboxEvents: Events kept on disk.
        ///   - outboxBytes: Bytes kept on disk.
        ///   - outboxFiles: Batch files kept on disk.
        ///   - backlogEvents: Events tracked but not yet written.
        ///   - backlogBytes: Estimated memory of those events.
        public init(
            outboxEvents: Int = 10_000,
            outboxBytes: Int = 10_000_000,
            outboxFiles: Int = 500,
            backlogEvents: Int = 5_000,
            backlogBytes: Int = 16 << 20
        ) {
            self.outboxEvents = outboxEvents
            self.outboxBytes = outboxBytes
            self.outboxFiles = outboxFiles
            self.backlogEvents = backlogEvents
            self.backlogBytes = backlogBytes
        }

        /// The product's limits, sized for an app: 10,000 events, 10 MB or 500 files on disk;
        /// 5,000 events or 16 MiB waiting to be written.
        public static let standard = Limits()

        /// Limits for a busy server: an outbox that rides out an hour-long edge outage at 1,000
        /// events a second (4,000,000 events, 1 GB, 5,000 files of up to 1,000 events), and a
        /// backlog that takes a burst of 100,000 events or 256 MiB before it skips.
        ///
        /// The cost: up to 1 GB of disk, read once at launch to take stock after an outage, and
        /// up to 256 MiB of memory during a burst.
        public static let server: Limits = {
            var limits = Limits(
                outboxEvents: 4_000_000,
                outboxBytes: 1_000_000_000,
                outboxFiles: 5_000,
                backlogEvents: 100_000,
                backlogBytes: 256 << 20
            )
            limits.fallsBackToServer = true
            return limits
        }()

        /// Limits are equal when their numbers are: where a nonsense value falls back to is not
        /// part of what they are.
        public static func == (lhs: Limits, rhs: Limits) -> Bool {
            lhs.outboxEvents == rhs.outboxEvents && lhs.outboxBytes == rhs.outboxBytes && lhs.outboxFiles == rhs.outboxFiles
                && lhs.backlogEvents == rhs.backlogEvents && lhs.backlogBytes == rhs.backlogBytes
        }

        /// The smallest sensible value of each byte limit: one full request (256 KiB).
        static let minimumBytes = 262_144

        /// These limits with every value below its floor replaced by their profile's (``server``'s
        /// or ``standard``'s), and one line per replaced value saying so. Pure, so the rule is
        /// tested without a client.
        func validated() -> (limits: Limits, problems: [String]) {
            var limits = self
            var problems: [String] = []
            let profile = fallsBackToServer ? Limits.server : Limits.standard
            let profileName = fallsBackToServer ? "the server profile's value" : "the default"
            func check(_ path: WritableKeyPath<Limits, Int>, _ name: String, floor: Int) {
                guard limits[keyPath: path] < floor else { return }
                let fallback = profile[keyPath: path]
                problems.append("limits.\(name) = \(limits[keyPath: path]) is below its floor of \(floor); using \(profileName), \(fallback).")
                limits[keyPath: path] = fallback
            }
            check(\.outboxEvents, "outboxEvents", floor: 1)
            check(\.outboxBytes, "outboxBytes", floor: Self.minimumBytes)
            check(\.outboxFiles, "outboxFiles", floor: 1)
            check(\.backlogEvents, "backlogEvents", floor: 1)
            check(\.backlogBytes, "backlogBytes", floor: Self.minimumBytes)
            return (limits, problems)
        }

        /// The outbox's part, in the journal's terms.
        var outboxCaps: OutboxCaps {
            OutboxCaps(maxEvents: outboxEvents, maxBytes: outboxBytes, maxFiles: outboxFiles)
        }
    }
}
