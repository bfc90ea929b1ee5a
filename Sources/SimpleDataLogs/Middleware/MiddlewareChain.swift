/// The configured ``EventMiddleware`` steps, run in order over one event by the identity stage
/// (and over the session events by the sessions stage).
///
/// Pure: the stage counts and logs what it returns. The event a step sees is an
/// ``OutgoingEvent`` copied from the pipeline's `Event`, and what the steps changed (name,
/// properties, device id) is copied back only when the event is kept.
package struct MiddlewareChain: Sendable {
    /// What became of one event.
    package enum Outcome: Sendable, Equatable {
        case kept
        /// The step of this name dropped it.
        case dropped(byStep: String)
    }

    /// What became of one event after the steps and the checks of what they made.
    enum Verdict: Sendable, Equatable {
        /// Kept. `clearedDeviceID`: a step set a device id the ingest would refuse, and the
        /// event goes on without one.
        case kept(clearedDeviceID: Bool)
        /// The step of this name dropped it.
        case dropped(byStep: String)
        /// A step made it an event the ingest would refuse (its name): dropped as invalid.
        case invalid
    }

    package let steps: [EventMiddleware]

    /// A chain of `steps`, in order (package-visible for the middleware benchmark).
    package init(steps: [EventMiddleware]) { self.steps = steps }

    var isEmpty: Bool { steps.isEmpty }

    /// Runs every step over `event`, stopping at the first that drops it.
    package func run(_ event: inout Event) -> Outcome {
        var outgoing = OutgoingEvent(
            name: event.name, properties: [:], deviceID: event.deviceID, eventID: event.id,
            timestampMilliseconds: event.timestamp, isAutocaptured: event.origin == .autocaptured
        )
        // Moved, not copied: with the event still holding the same storage, a step's first change
        // would copy the whole dictionary (copy-on-write) for every event.
        swap(&outgoing.properties, &event.properties)
        for step in steps where step.body(&outgoing) == .drop {
            return .dropped(byStep: step.name)
        }
        event.name = outgoing.name
        swap(&event.properties, &outgoing.properties)
        event.deviceID = outgoing.deviceID
        return .kept
    }

    /// Runs the steps, then checks what they made by the rules a tracked event meets: a name
    /// the ingest would refuse makes the event invalid, bad properties are repaired, and a
    /// device id it would refuse is cleared (the event is kept without one, never given the
    /// client's: the step meant another device).
    /// Runs the steps on an event the SDK made itself (a session's start or end) and counts in
    /// `tally` what they end, as for a tracked event; true when the event goes on. With no
    /// steps, the event goes on as made.
    func pass(_ event: inout Event, tally: inout ChunkTally, problems: inout [EventValidator.Problem], problemLog: ProblemLog) -> Bool {
        guard !isEmpty else { return true }
        switch process(&event, problems: &problems) {
        case .kept(let cleared):
            if cleared {
                tally.clearedDeviceIDs += 1
                problemLog.reportClearedDeviceID(from: .middleware)
            }
            return true
        case .dropped(let step):
            tally.droppedBySteps[step, default: 0] += 1
            return false
        case .invalid:
            tally.invalid += 1
            return false
        }
    }

    func process(_ event: inout Event, problems: inout [EventValidator.Problem]) -> Verdict {
        if case .dropped(let step) = run(&event) { return .dropped(byStep: step) }
        guard EventValidator.validate(&event, problems: &problems) else { return .invalid }
        if let id = event.deviceID, !IdentityState.isValidDeviceID(id) {
            event.deviceID = nil
            return .kept(clearedDeviceID: true)
        }
        return .kept(clearedDeviceID: false)
    }
}
