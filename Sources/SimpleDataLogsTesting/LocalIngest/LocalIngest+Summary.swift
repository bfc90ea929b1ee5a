extension LocalIngest {
    /// Counters over everything the server has seen since it started.
    public struct Summary: Sendable, Hashable {
        /// Requests read in full, on any path, answered or dropped.
        public var requests = 0
        /// Batches counted: requests to `/v1/events` that reached a normal 202, less replays of
        /// a batch id already counted.
        public var batches = 0
        /// Events counted once (the sum of `accepted` over all 202 answers).
        public var accepted = 0
        /// Events not counted again: repeated `event_id`s and the events of replayed batches.
        public var duplicates = 0
        /// Events refused by the rules (the sum of the `rejected` lists' lengths).
        public var rejected = 0
        /// Every valid event in every request that reached a normal 202, repeats included.
        public var rawEvents = 0
        /// Requests whose `SDL-Batch-ID` had already been counted.
        public var replayedBatches = 0
        /// Answers sent, by status (100 Continue not included).
        public var byStatus: [Int: Int] = [:]
        /// Connections closed by ``ScriptedAnswer/closeBeforeReading``.
        public var closedBeforeReading = 0
        /// Answers not sent after counting, by ``ScriptedAnswer/dropResponseAfterCounting``.
        public var droppedResponses = 0

        /// Creates an empty summary.
        public init() {}
    }
}
