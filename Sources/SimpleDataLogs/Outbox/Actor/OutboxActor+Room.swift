extension OutboxActor {
    /// Tells the intake how much room the outbox has left before its caps evict (``OutboxRoom``),
    /// so that callers of the waiting `track` wait while taking their event would push an older
    /// one out (issue 23, item 10).
    ///
    /// Called at the end of every operation and in ``commit()`` before the written events leave
    /// the backlog: for that moment they are counted twice (in flight and stored), which only
    /// makes a waiter wait a little longer, never lets one in that the caps would evict for.
    func publishRoom() {
        let stored = unevictableUsage + queue.sealedUsage
        intake.setOutboxRoom(OutboxRoom(caps: caps, stored: stored, batchEvents: policy.maxEvents))
    }
}
