import SimpleDataLogs
import SDLJSON

/// The ingest's body rules (INGEST-API.md), as a pure function from bytes to a verdict.
///
/// Anything wrong with the body as a whole is ``Outcome/malformed(_:)`` (a 400); anything wrong
/// inside one event rejects that event alone. Deduplication is not done here: it needs the
/// server's memory, which ``IngestStorage`` holds.
enum IngestValidator {
    /// The contract's limits: the SDK's own `EventLimits`, so the two sides cannot drift apart,
    /// plus the edge's `ts` window, which the SDK keeps narrower (3,650 days).
    enum Limits {
        static let maxEvents = EventLimits.maxEventsPerRequest
        static let maxNameBytes = EventLimits.maxNameBytes
        static let maxEventIDBytes = EventLimits.maxEventIDBytes
        static let maxDeviceIDBytes = EventLimits.maxDeviceIDBytes
        static let maxPropertyCount = EventLimits.maxPropertyCount
        static let maxPropertyKeyBytes = EventLimits.maxPropertyKeyBytes
        static let maxStringValueBytes = EventLimits.maxStringValueBytes
        static let millisecondsPerDay = EventLimits.millisecondsPerDay
        /// `ts` may be this many days in the past at the edge.
        static let maxPastDays: Int64 = 3_652
        /// `ts` may be this many days in the future at the edge.
        static let maxFutureDays: Int64 = 1
    }

    /// What one event in the body turned out to be.
    enum Verdict: Sendable, Equatable {
        case valid(ReceivedEvent)
        case rejected(IngestRejection)
    }

    /// The verdict on a whole body.
    enum Outcome: Sendable, Equatable {
        /// Not JSON of the contract's shape: answer 400 with this message.
        case malformed(String)
        /// A well-formed batch; one verdict per event, in order.
        case batch(sentAt: Int64, verdicts: [Verdict])
    }

    /// Validates a decompressed request body.
    /// - Parameters:
    ///   - body: The body, after any gzip decoding.
    ///   - nowMilliseconds: The server's wall-clock time, for the `ts` window.
    ///   - batchID: The request's `SDL-Batch-ID`, copied into each received event.
    /// - Returns: The verdict.
    static func validate(body: [UInt8], nowMilliseconds: Int64, batchID: String?) -> Outcome {
        let document: JSONValue
        switch JSONParser.parse(body) {
        case .success(let value): document = value
        case .failure(let failure): return .malformed("the body is not JSON: \(failure.message) at byte \(failure.offset)")
        }
        guard case .object(let top) = document else { return .malformed("the body must be a JSON object") }
        guard let sentAtValue = top["sent_at"] else { return .malformed("the body has no sent_at") }
        guard let sentAt = sentAtValue.integerValue else { return .malformed("sent_at must be an integer, not \(sentAtValue.kindName)") }
        guard let eventsValue = top["events"] else { return .malformed("the body has no events") }
        guard case .array(let events) = eventsValue else { return .malformed("events must be an array, not \(eventsValue.kindName)") }
        guard !events.isEmpty else { return .malformed("events is empty") }
        guard events.count <= Limits.maxEvents else { return .malformed("\(events.count) events; at most \(Limits.maxEvents) per request") }
        let verdicts = events.enumerated().map { index, value in
            verdict(for: value, index: index, nowMilliseconds: nowMilliseconds, batchID: batchID, sentAt: sentAt)
        }
        return .batch(sentAt: sentAt, verdicts: verdicts)
    }

    private static func verdict(for value: JSONValue, index: Int, nowMilliseconds: Int64, batchID: String?, sentAt: Int64) -> Verdict {
        guard case .object(let fields) = value else {
            return .rejected(IngestRejection(index: index, eventID: nil, reason: "the event is \(value.kindName), not an object"))
        }
        let eventID = fields["event_id"]?.stringValue
        switch event(from: fields, nowMilliseconds: nowMilliseconds) {
        case .success(var event):
            event.batchID = batchID
            event.sentAt = sentAt
            return .valid(event)
        case .failure(let problem):
            return .rejected(IngestRejection(index: index, eventID: eventID, reason: problem.reason))
        }
    }

    private struct Problem: Error { var reason: String }

    private static func event(from fields: [String: JSONValue], nowMilliseconds: Int64) -> Result<ReceivedEvent, Problem> {
        do {
            let name = try string(fields["event"], field: "event", maxBytes: Limits.maxNameBytes)
            if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw Problem(reason: "event contains a control character")
            }
            let eventID = try string(fields["event_id"], field: "event_id", maxBytes: Limits.maxEventIDBytes)
            let timestamp = try integer(fields["ts"], field: "ts")
            // Saturating arithmetic: a wall clock set to an absurd time must not trap the server.
            let earliest = nowMilliseconds.subtractingReportingOverflow(Limits.maxPastDays * Limits.millisecondsPerDay)
            let latest = nowMilliseconds.addingReportingOverflow(Limits.maxFutureDays * Limits.millisecondsPerDay)
            if !earliest.overflow, timestamp < earliest.partialValue {
                throw Problem(reason: "ts is more than \(Limits.maxPastDays) days in the past")
            }
            if !latest.overflow, timestamp > latest.partialValue {
                throw Problem(reason: "ts is more than \(Limits.maxFutureDays) day in the future")
            }
            let deviceID = try fields["device_id"].map { try string($0, field: "device_id", maxBytes: Limits.maxDeviceIDBytes) }
            let sessionID = try fields["session_id"].map { try string($0, field: "session_id", maxBytes: nil) }
            let appState = try fields["app_state"].map { value -> String in
                let state = try string(value, field: "app_state", maxBytes: nil)
                guard state == "active" || state == "background" else {
                    throw Problem(reason: "app_state must be \"active\" or \"background\"")
                }
                return state
            }
            let engaged = try fields["engaged_ms"].map { value -> Int64 in
                let milliseconds = try integer(value, field: "engaged_ms")
                guard milliseconds >= 0 else { throw Problem(reason: "engaged_ms is negative") }
                return milliseconds
            }
            let properties = try fields["props"].map(properties(from:)) ?? [:]
            return .success(ReceivedEvent(
                name: name, eventID: eventID, timestamp: timestamp, deviceID: deviceID, sessionID: sessionID,
                appState: appState, engagedMilliseconds: engaged, properties: properties
            ))
        } catch let problem as Problem {
            return .failure(problem)
        } catch {
            return .failure(Problem(reason: "\(error)"))
        }
    }

    private static func string(_ value: JSONValue?, field: String, maxBytes: Int?) throws -> String {
        guard let value else { throw Problem(reason: "\(field) is missing") }
        guard let string = value.stringValue else { throw Problem(reason: "\(field) must be a string, not \(value.kindName)") }
        let count = string.utf8.count
        guard count >= 1 else { throw Problem(reason: "\(field) is empty") }
        if let maxBytes, count > maxBytes { throw Problem(reason: "\(field) is \(count) bytes; at most \(maxBytes)") }
        return string
    }

    private static func integer(_ value: JSONValue?, field: String) throws -> Int64 {
        guard let value else { throw Problem(reason: "\(field) is missing") }
        guard let integer = value.integerValue else { throw Problem(reason: "\(field) must be an integer, not \(value.kindName)") }
        return integer
    }

    private static func properties(from value: JSONValue) throws -> [String: PropertyValue] {
        guard case .object(let members) = value else { throw Problem(reason: "props must be an object, not \(value.kindName)") }
        guard members.count <= Limits.maxPropertyCount else {
            throw Problem(reason: "props has \(members.count) keys; at most \(Limits.maxPropertyCount)")
        }
        var properties: [String: PropertyValue] = [:]
        for (key, member) in members {
            let keyBytes = key.utf8.count
            guard keyBytes >= 1 else { throw Problem(reason: "props has an empty key") }
            guard keyBytes <= Limits.maxPropertyKeyBytes else {
                throw Problem(reason: "a props key is \(keyBytes) bytes; at most \(Limits.maxPropertyKeyBytes)")
            }
            switch member {
            case .string(let string):
                let count = string.utf8.count
                guard count <= Limits.maxStringValueBytes else {
                    throw Problem(reason: "props.\(key) is \(count) bytes; at most \(Limits.maxStringValueBytes)")
                }
                properties[key] = .string(string)
            case .integer(let integer): properties[key] = .int(integer)
            case .number(let number):
                guard number.isFinite else { throw Problem(reason: "props.\(key) is not a finite number") }
                properties[key] = .double(number)
            case .bool(let bool): properties[key] = .bool(bool)
            case .null, .array, .object, .integerOutOfRange:
                throw Problem(reason: "props.\(key): \(member.kindName) is not a property value")
            }
        }
        return properties
    }
}
