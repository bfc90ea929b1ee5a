import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// One received event as one readable line, or as one JSON object, for `sdl ingest` and
/// `sdl demo`.
enum EventLine {
    /// `12:04:05.120  screen_view  device=… screen="editor"`: time, name, then the fields that
    /// were set, properties sorted by key.
    static func text(_ event: ReceivedEvent, showDate: Bool = false) -> String {
        var parts = [time(event.timestamp, withDate: showDate), event.name.padding(toLength: max(event.name.count, 18), withPad: " ", startingAt: 0)]
        if let deviceID = event.deviceID { parts.append("device=\(deviceID)") }
        if let sessionID = event.sessionID { parts.append("session=\(sessionID.prefix(8))") }
        parts += event.properties.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return parts.joined(separator: " ")
    }

    /// The event as one JSON object on one line.
    static func json(_ event: ReceivedEvent) -> String {
        var object: [String: Any] = ["event": event.name, "event_id": event.eventID, "ts": event.timestamp, "sent_at": event.sentAt]
        if let deviceID = event.deviceID { object["device_id"] = deviceID }
        if let sessionID = event.sessionID { object["session_id"] = sessionID }
        if let appState = event.appState { object["app_state"] = appState }
        if let engaged = event.engagedMilliseconds { object["engaged_ms"] = engaged }
        if let batchID = event.batchID { object["batch_id"] = batchID }
        if !event.properties.isEmpty {
            var properties: [String: Any] = [:]
            for (key, value) in event.properties {
                switch value {
                case .string(let text): properties[key] = text
                case .int(let number): properties[key] = number
                case .double(let number): properties[key] = number
                case .bool(let flag): properties[key] = flag
                }
            }
            object["props"] = properties
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// `HH:mm:ss.SSS` in UTC (with the date when asked, or when it is not today).
    static func time(_ milliseconds: Int64, withDate: Bool = false) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        let today = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: Date()).day
        let day = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC") ?? .current, from: date).day
        formatter.dateFormat = withDate || today != day ? "yyyy-MM-dd HH:mm:ss.SSS" : "HH:mm:ss.SSS"
        return formatter.string(from: date) + "Z"
    }
}
