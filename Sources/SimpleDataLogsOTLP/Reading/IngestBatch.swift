import SDLJSON
import SimpleDataLogs

/// One try of one batch as the uploader sent it (INGEST-API.md, "Request"), read back from the
/// request body: what ``OTLPLogsEncoder`` turns into an `ExportLogsServiceRequest`.
struct IngestBatch: Sendable, Equatable {
    /// One event of the batch.
    struct Event: Sendable, Equatable {
        /// `event`: the event's name.
        var name: String
        /// `event_id`: the deduplication key.
        var eventID: String
        /// `ts`: ms since the Unix epoch.
        var timestamp: Int64
        /// `device_id`, when the event has one.
        var deviceID: String?
        /// `session_id`, when the event has one.
        var sessionID: String?
        /// `app_state` (`active` or `background`), when activity tracking is on.
        var appState: String?
        /// `engaged_ms`, when activity tracking is on.
        var engagedMilliseconds: Int64?
        /// `props`, in the order written.
        var properties: [(key: String, value: PropertyValue)]

        static func == (lhs: Event, rhs: Event) -> Bool {
            lhs.name == rhs.name && lhs.eventID == rhs.eventID && lhs.timestamp == rhs.timestamp
                && lhs.deviceID == rhs.deviceID && lhs.sessionID == rhs.sessionID && lhs.appState == rhs.appState
                && lhs.engagedMilliseconds == rhs.engagedMilliseconds
                && lhs.properties.map(\.key) == rhs.properties.map(\.key) && lhs.properties.map(\.value) == rhs.properties.map(\.value)
        }
    }

    /// `sent_at`: the client's clock at this try, ms since the Unix epoch.
    var sentAt: Int64
    /// `events`, in batch order.
    var events: [Event]
}

extension IngestBatch {
    /// Why a body is not an ingest batch. The uploader only ever sends batches it built, so this
    /// means a bug or a foreign caller; the transport answers it as a 400 (the batch is set aside,
    /// kept on disk).
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// What is wrong, for the 400's `error`.
        var message: String
        var description: String { message }
    }

    /// Reads an uncompressed ingest body.
    /// - Parameter body: `{"sent_at":…,"events":[…]}`.
    /// - Returns: The batch, or why the body is not one.
    static func read(_ body: [UInt8]) -> Result<IngestBatch, Failure> {
        let root: JSONValue
        switch JSONParser.parse(body) {
        case .success(let node): root = node
        case .failure(let failure): return .failure(Failure(message: "the batch is not JSON: \(failure)"))
        }
        guard case .integer(let sentAt)? = root.member("sent_at") else {
            return .failure(Failure(message: "the batch has no integer sent_at"))
        }
        guard case .array(let nodes)? = root.member("events") else {
            return .failure(Failure(message: "the batch has no events array"))
        }
        var events: [Event] = []
        events.reserveCapacity(nodes.count)
        for (index, node) in nodes.enumerated() {
            switch event(node) {
            case .success(let event): events.append(event)
            case .failure(let failure): return .failure(Failure(message: "event \(index): \(failure.message)"))
            }
        }
        return .success(IngestBatch(sentAt: sentAt, events: events))
    }

    private static func event(_ node: JSONValue) -> Result<Event, Failure> {
        guard case .object = node else { return .failure(Failure(message: "not an object")) }
        guard case .string(let name)? = node.member("event") else { return .failure(Failure(message: "no string event")) }
        guard case .string(let eventID)? = node.member("event_id") else { return .failure(Failure(message: "no string event_id")) }
        guard case .integer(let timestamp)? = node.member("ts") else { return .failure(Failure(message: "no integer ts")) }
        var event = Event(name: name, eventID: eventID, timestamp: timestamp, properties: [])
        // Optional fields of the wrong type are a broken batch, not an absent field.
        for (field, target) in [("device_id", \Event.deviceID), ("session_id", \Event.sessionID), ("app_state", \Event.appState)] {
            switch node.member(field) {
            case nil: break
            case .string(let value)?: event[keyPath: target] = value
            case _?: return .failure(Failure(message: "\(field) is not a string"))
            }
        }
        switch node.member("engaged_ms") {
        case nil: break
        case .integer(let value)?: event.engagedMilliseconds = value
        case _?: return .failure(Failure(message: "engaged_ms is not an integer"))
        }
        switch node.member("props") {
        case nil: break
        case .object(let members)?:
            event.properties.reserveCapacity(members.count)
            // By name: the batch's order is its encoder's dictionary order, which says nothing.
            for member in members.sorted(by: { $0.key < $1.key }) {
                let value: PropertyValue
                switch member.value {
                case .string(let string): value = .string(string)
                case .integer(let integer): value = .int(integer)
                case .number(let double): value = .double(double)
                case .bool(let bool): value = .bool(bool)
                default: return .failure(Failure(message: "property \(member.key) is not a string, number or boolean"))
                }
                event.properties.append((member.key, value))
            }
        case _?: return .failure(Failure(message: "props is not an object"))
        }
        return .success(event)
    }
}
