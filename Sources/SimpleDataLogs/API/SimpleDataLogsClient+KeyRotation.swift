extension SimpleDataLogsClient {
    /// Replaces the ingest key while the client runs: for a project's new key, when the old one
    /// leaked or expires. No restart, and nothing is lost or sent twice.
    ///
    /// Applied in order with the calls around it. Once the events tracked before it are
    /// journaled, the outbox records its folder as the new key's, then the uploader sends
    /// **everything not yet delivered** with the new key, the events tracked before the call
    /// included (they are the same project's), from its next request on. A 401 pause ends at
    /// once: the next request tries the new key. A request already in flight with the old key
    /// that gets a 401 is sent again with the new one. A new key the edge does not take yet (it
    /// goes live about 30 s after it is made) pauses as any 401 does, and is probed a minute later.
    ///
    /// The endpoint stays. To send to another project, configure another client: a rotation
    /// moves this client's unsent events to the new key.
    ///
    /// Not persisted: the next launch sends with the key `configure` is given. Pass the old key
    /// in ``Configuration/previousIngestKeys`` then, so that what it left (a kill before the
    /// rotation was recorded, a process that never rotated) goes with the new key too.
    ///
    /// A key that is not well formed (neither `sdl_pub_` nor `sdl_sec_`), or a call on a client
    /// that sends nothing (not configured, or refused at `configure`), is ignored with one log line.
    /// - Parameter newKey: The new key; whitespace around it is dropped, as at `configure`.
    public func rotateIngestKey(to newKey: String) {
        let (verdict, previous, logger) = swapIngestKey(for: newKey)
        switch verdict {
        case .rotate(let key):
            logger.info("Ingest key rotated from \(IngestKey.redacted(previous ?? "")) to \(IngestKey.redacted(key)): events not yet delivered go with the new key.")
        case .unchanged:
            break
        case .malformed:
            logger.error("rotateIngestKey: \(IngestKey.redacted(IngestKey.trimmed(newKey))) is not an ingest key (keys start with sdl_pub_ or sdl_sec_); ignored, the client keeps its key.")
        case .cannotSend:
            logger.error("rotateIngestKey: this client sends nothing (not configured, shut down, or its key or endpoint was refused at configure); ignored. Pass the key to configure.")
        }
    }
}
