package import Foundation

/// How far the journal has come: what is on disk and would survive `kill -9`.
package struct JournalWatermark: Sendable, Hashable {
    /// Events written to the journal since the client started.
    package var eventsWritten: Int
    /// The id of the latest event written, if any.
    package var latestEventID: UUID?

    /// Creates a watermark.
    package init(eventsWritten: Int = 0, latestEventID: UUID? = nil) {
        self.eventsWritten = eventsWritten
        self.latestEventID = latestEventID
    }
}
