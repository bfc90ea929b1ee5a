import Foundation

extension PendingReceipt {
    /// The name of the receipt's event, one of the SDK's own events beside `session_end` and
    /// `app_crashed`.
    package static let eventName = "delivery_receipt"

    /// The receipt as an event: its derived id, stamped when it was made, with no device id or
    /// session (a receipt is about the install, not a user), and these properties:
    ///
    /// | property | what |
    /// | --- | --- |
    /// | `delivered`, `rejected`, `evicted`, `too_large`, `lost_from_disk`, `skipped_backlog`, `invalid`, `dropped_by_middleware`, `dropped_before_configure`, `dropped_at_shutdown` | events whose fate was settled that way in the period |
    /// | `settled` | their sum |
    /// | `set_aside`, `pending` | events set aside, and on their way, when it was made (snapshots, not part of `settled`) |
    /// | `receipt_seq`, `receipt_ledger` | its number in its ledger, from 1, and the ledger's random id: a gap in the numbers is a lost receipt |
    /// | `period_start_ms` | when its period began (the last receipt, or the ledger's creation) |
    /// | `sdk_version`, `app_version` | the SDK's version; the app's, when known |
    package var event: Event {
        var properties: [String: PropertyValue] = [
            "settled": .int(Int64(counts.settled)),
            "set_aside": .int(Int64(setAside)),
            "pending": .int(Int64(pending)),
            "receipt_seq": .int(Int64(sequence)),
            "receipt_ledger": .string(EventEncoder.lowercaseString(ledger)),
            "period_start_ms": .int(since),
            "sdk_version": .string(SimpleDataLogsVersion.current),
        ]
        for field in ReceiptCounts.fields { properties[field.name] = .int(Int64(counts[keyPath: field.path])) }
        if let appVersion, !appVersion.isEmpty, appVersion.utf8.count <= EventLimits.maxStringValueBytes {
            properties["app_version"] = .string(appVersion)
        }
        return Event(name: Self.eventName, id: eventID, timestamp: at, trackedAt: at, properties: properties, origin: .autocaptured)
    }
}
