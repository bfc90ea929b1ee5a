/// The intake rules that keep every event inside the ingest's limits (INGEST-API.md), so that an
/// event the edge would reject never enters the outbox.
///
/// Per rule, the decision is either to drop the whole event (its name is its identity, and a
/// wrong time cannot be fixed) or to repair the event and keep it (a bad property never costs the
/// other properties). Pure: it takes the time as an argument and reports what it did.
enum EventValidator {
    /// A rule that fired, for the one log line per rule and for the tests.
    enum Problem: String, Sendable, CaseIterable {
        // The event is dropped:
        case emptyName = "an empty event name"
        case nameTooLong = "an event name over 200 UTF-8 bytes"
        case nameHasControlCharacters = "an event name with control characters"
        case tooOld = "a back-dated time more than 3,650 days ago"
        // The event is kept, repaired:
        case emptyPropertyKey = "an empty property key (the property was dropped)"
        case propertyKeyTooLong = "a property key over 200 UTF-8 bytes (the property was dropped)"
        case nonFiniteNumber = "a NaN or infinite number (the property was dropped)"
        case stringValueTooLong = "a string value over 8,192 UTF-8 bytes (cut on a character boundary)"
        case tooManyProperties = "more than 200 properties (kept by precedence: the event's own, then the scope's, then the defaults; within one of them, the first in sorted order)"
        case invalidAppState = "an app_state other than \"active\" or \"background\" (the property was dropped)"
        case futureTime = "a back-dated time in the future (sent as now)"

        /// Whether this problem costs the whole event.
        var dropsEvent: Bool {
            switch self {
            case .emptyName, .nameTooLong, .nameHasControlCharacters, .tooOld: return true
            default: return false
            }
        }
    }

    /// Checks the event's name, time and own properties (before the default properties are
    /// merged), repairing what can be repaired.
    /// - Parameters:
    ///   - event: The event, repaired in place.
    ///   - problems: Receives each rule that fired.
    /// - Returns: `false` if the event must be dropped.
    static func validate(_ event: inout Event, problems: inout [Problem]) -> Bool {
        if let problem = nameProblem(event.name) {
            problems.append(problem)
            return false
        }
        if event.origin == .backdated {
            let now = event.trackedAt
            if event.timestamp < now - EventLimits.maxBackdateDays * EventLimits.millisecondsPerDay {
                problems.append(.tooOld)
                return false
            }
            if event.timestamp > now {
                problems.append(.futureTime)
                event.timestamp = now
            }
        }
        if !event.properties.isEmpty {
            if sanitize(&event.properties, problems: &problems) { extractAppState(&event, problems: &problems) }
        }
        return true
    }

    /// Repairs a property dictionary in place: drops bad keys and non-finite numbers, cuts long
    /// strings, and keeps at most 200 keys. Used for an event's own properties and for the
    /// default properties when they are set.
    /// - Returns: Whether a key `app_state` is among them (found in the same pass, by comparing
    ///   strings, so that the usual event, without one, never hashes a key to look for it).
    @discardableResult
    static func sanitize(_ properties: inout [String: PropertyValue], problems: inout [Problem]) -> Bool {
        // A first pass that only reads: almost every event is clean, and then nothing is copied.
        var needsRepair = false
        var hasAppState = false
        for (key, value) in properties {
            if key == "app_state" { hasAppState = true }
            if !isClean(key: key, value: value) {
                needsRepair = true
                hasAppState = true // unknown after the repair; the lookup decides
                break
            }
        }
        if needsRepair {
            var repaired: [String: PropertyValue] = [:]
            repaired.reserveCapacity(properties.count)
            for (key, value) in properties {
                if key.isEmpty { problems.append(.emptyPropertyKey); continue }
                if key.utf8.count > EventLimits.maxPropertyKeyBytes { problems.append(.propertyKeyTooLong); continue }
                switch value {
                case .double(let number) where !number.isFinite:
                    problems.append(.nonFiniteNumber)
                case .string(let string) where string.utf8.count > EventLimits.maxStringValueBytes:
                    problems.append(.stringValueTooLong)
                    repaired[key] = .string(truncated(string, toUTF8Bytes: EventLimits.maxStringValueBytes))
                default:
                    repaired[key] = value
                }
            }
            properties = repaired
        }
        if properties.count > EventLimits.maxPropertyCount {
            problems.append(.tooManyProperties)
            let kept = properties.keys.sorted().prefix(EventLimits.maxPropertyCount)
            var trimmed: [String: PropertyValue] = [:]
            for key in kept { trimmed[key] = properties[key] }
            properties = trimmed
        }
        return hasAppState
    }

    /// Merges `lower` under `properties` by precedence: a key `properties` holds wins, and past
    /// 200 keys the keys of `lower` are the ones left out (the first in sorted order are taken),
    /// so an event's own properties are never lost to the scope's or the defaults'.
    /// - Parameters:
    ///   - lower: The properties of lower precedence (a `withProperties` scope, the defaults).
    ///   - properties: The event's, merged into in place.
    ///   - problems: Receives ``Problem/tooManyProperties`` when keys are left out, and what
    ///     repairing `lower` found when it had to be looked at key by key.
    static func merge(_ lower: [String: PropertyValue], under properties: inout [String: PropertyValue], problems: inout [Problem]) {
        guard !lower.isEmpty else { return }
        if properties.isEmpty, lower.count <= EventLimits.maxPropertyCount {
            properties = lower
            return
        }
        // The usual case: both fit together, whatever overlaps.
        if properties.count + lower.count <= EventLimits.maxPropertyCount {
            properties.merge(lower) { own, _ in own }
            return
        }
        // Repaired first, so that a key the ingest would refuse takes no slot.
        var lower = lower
        sanitize(&lower, problems: &problems)
        var leftOut = false
        for key in lower.keys.sorted() where properties[key] == nil {
            guard properties.count < EventLimits.maxPropertyCount else {
                leftOut = true
                break
            }
            properties[key] = lower[key]
        }
        if leftOut { problems.append(.tooManyProperties) }
    }

    /// Whether a name breaks a rule that drops the event, and which.
    static func nameProblem(_ name: String) -> Problem? {
        if name.isEmpty { return .emptyName }
        if name.utf8.count > EventLimits.maxNameBytes { return .nameTooLong }
        if hasControlCharacter(name) { return .nameHasControlCharacters }
        return nil
    }

    /// C0 and C1 control characters and DEL, which the ingest refuses in names, found in the
    /// UTF-8 bytes (C1 is `C2 80`…`C2 9F`): no scalar is decoded for the usual clean name.
    static func hasControlCharacter(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x7F { return true }
                if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
                index += 1
            }
            return false
        }
    }

    /// Cuts a string to at most `limit` UTF-8 bytes without splitting a character.
    static func truncated(_ string: String, toUTF8Bytes limit: Int) -> String {
        guard string.utf8.count > limit else { return string }
        var result = ""
        result.reserveCapacity(limit)
        var used = 0
        for character in string {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// The caller's `app_state` travels as the top-level field, not inside `props`
    /// (INGEST-API.md); any other value is dropped.
    private static func extractAppState(_ event: inout Event, problems: inout [Problem]) {
        guard let value = event.properties.removeValue(forKey: "app_state") else { return }
        if case .string(let string) = value, let state = AppState(rawValue: string) {
            event.appState = state
        } else {
            problems.append(.invalidAppState)
        }
    }

    private static func isClean(key: String, value: PropertyValue) -> Bool {
        if key.isEmpty || key.utf8.count > EventLimits.maxPropertyKeyBytes { return false }
        switch value {
        case .double(let number): return number.isFinite
        case .string(let string): return string.utf8.count <= EventLimits.maxStringValueBytes
        case .int, .bool: return true
        }
    }

}
