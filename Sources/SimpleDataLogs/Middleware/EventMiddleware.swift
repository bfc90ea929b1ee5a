/// One step of the event middleware: a function that may enrich, rewrite, scrub or drop each
/// event before it is journaled.
///
/// Steps are given to ``SimpleDataLogsClient/Configuration/middleware`` in the order they run.
/// They run on the SDK's stages thread, in intake order, never inside `track()`: a slow step
/// slows how fast events reach the disk, never the caller (the backlog bound still applies).
/// A step must not call back into the SDK (`track` from a step would feed the chain forever).
///
/// A step's time multiplies by the queue: every queued event passes it before the journal.
/// ``SimpleDataLogsClient/shutdown(timeLimit:)`` bounds that: at its limit the steps get no
/// more events, and those they have not seen are dropped and counted in
/// ``DeliveryCounters/droppedAtShutdown``. A step that blocks keeps the SDK's stages thread, and
/// every event behind it, until it returns; keep network calls and locks out of steps.
///
/// ```swift
/// let middleware: [EventMiddleware] = [
///     .enrich("build") { _ in ["build": "2026.12.1"] },
///     .scrub("no emails", keys: ["email", "phone"]),
///     .drop("no debug events") { $0.name.hasPrefix("debug_") },
/// ]
/// ```
///
/// A dropped event is counted in ``DeliveryCounters/droppedByMiddleware`` and, per step, in
/// ``DeliveryCounters/droppedByStep``; it is never journaled or sent.
public struct EventMiddleware: Sendable {
    /// What a step decides for an event.
    public enum Verdict: Sendable, Hashable {
        /// The event goes on, with whatever the step changed, to the next step.
        case keep
        /// The event ends here: counted, never journaled.
        case drop
    }

    /// The step's name: in the per-step counters and the log.
    public let name: String
    let body: @Sendable (inout OutgoingEvent) -> Verdict

    /// Creates a step.
    /// - Parameters:
    ///   - name: The step's name, for the counters.
    ///   - body: Changes the event in place, and keeps or drops it.
    public init(_ name: String, _ body: @escaping @Sendable (inout OutgoingEvent) -> Verdict) {
        self.name = name
        self.body = body
    }

    /// Runs the step over one event, as the SDK does for every event: for testing a step on
    /// its own, with an ``OutgoingEvent`` made by its public initializer.
    ///
    /// ```swift
    /// var event = OutgoingEvent(name: "signed_up", properties: ["email": "a@example.com", "plan": "pro"])
    /// #expect(EventMiddleware.scrub("no emails", keys: ["email"]).run(&event) == .keep)
    /// #expect(event.properties == ["plan": "pro"])
    /// ```
    ///
    /// The SDK then checks what the steps made (a name it cannot send drops the event as
    /// invalid; a device id the ingest would refuse is cleared); this call does not.
    /// - Parameter event: The event, changed in place as the step changes it.
    /// - Returns: Whether the step keeps or drops the event.
    public func run(_ event: inout OutgoingEvent) -> Verdict {
        body(&event)
    }

    /// A step that adds properties to every event; the event's own properties win on a clash.
    /// - Parameters:
    ///   - name: The step's name.
    ///   - properties: The properties to add, computed for each event.
    /// - Returns: The step.
    public static func enrich(
        _ name: String, _ properties: @escaping @Sendable (OutgoingEvent) -> [String: PropertyValue]
    ) -> EventMiddleware {
        EventMiddleware(name) { event in
            event.properties.merge(properties(event)) { own, _ in own }
            return .keep
        }
    }

    /// A step that removes properties by key from every event (personal data that must not
    /// leave the device, for example).
    /// - Parameters:
    ///   - name: The step's name.
    ///   - keys: The keys to remove.
    /// - Returns: The step.
    public static func scrub(_ name: String, keys: Set<String>) -> EventMiddleware {
        EventMiddleware(name) { event in
            for key in keys { event.properties[key] = nil }
            return .keep
        }
    }

    /// A step that drops the events a predicate picks.
    /// - Parameters:
    ///   - name: The step's name, for its drop counter.
    ///   - predicate: True for an event to drop.
    /// - Returns: The step.
    public static func drop(_ name: String, where predicate: @escaping @Sendable (OutgoingEvent) -> Bool) -> EventMiddleware {
        EventMiddleware(name) { event in predicate(event) ? .drop : .keep }
    }
}
