public import Foundation

extension UUID {
    /// The namespace of every derived event id: the version 5 UUID of the URL
    /// `https://simpledatalogs.com/ns/event-id` (`7ee3c7e4-0e30-50d1-91d1-866a0507db86`).
    package static let eventKeyNamespace = UUID(uuid: (
        0x7E, 0xE3, 0xC7, 0xE4, 0x0E, 0x30, 0x50, 0xD1, 0x91, 0xD1, 0x86, 0x6A, 0x05, 0x07, 0xDB, 0x86
    ))

    /// An event id derived from the caller's own stable key, so that one event handled twice is
    /// sent under one id and counted once at the ingest: a webhook delivered to two pods, a job
    /// retried after a crash, a message queue's redelivery.
    ///
    /// ```swift
    /// // In every pod that may handle this webhook: the same key, the same id, one event.
    /// client.track("payment_succeeded", properties: ["plan": "pro"],
    ///              eventID: UUID(eventKey: webhook.id, in: "stripe"), deviceID: webhook.customerID)
    /// ```
    ///
    /// A name-based UUID (version 5, RFC 9562) of `namespace`, a NUL byte and `key`, in the
    /// namespace ``eventKeyNamespace``: the same in every process, language and release. Any
    /// system can compute it, for example Python's
    /// `uuid.uuid5(uuid.UUID("7ee3c7e4-0e30-50d1-91d1-866a0507db86"), namespace + "\0" + key)`.
    /// The namespace keeps two sources' keys apart (a Stripe `evt_1` and a GitHub delivery `1`);
    /// name it after the source, not the event. Keys are taken as given (case and Unicode form
    /// included): `"EVT_1"` and `"evt_1"` are two ids.
    ///
    /// Anyone who knows a key can compute its id, and can test a guessed key against an id: derive
    /// from ids the source made up (a webhook's event id), never from personal data.
    /// - Parameters:
    ///   - key: The caller's stable key for this one event.
    ///   - namespace: The key's source, for example `"stripe"`.
    public init(eventKey key: String, in namespace: String) {
        var name = Array(namespace.utf8)
        name.append(0)
        name.append(contentsOf: key.utf8)
        self = UUID.nameBased(name, in: .eventKeyNamespace)
    }

    /// A version 5 UUID: the first 16 bytes of SHA-1 over the namespace's bytes and `name`, with
    /// the version (5) and variant (RFC 9562) bits set.
    package static func nameBased(_ name: [UInt8], in namespace: UUID) -> UUID {
        let space = namespace.uuid
        let spaceBytes = [
            space.0, space.1, space.2, space.3, space.4, space.5, space.6, space.7,
            space.8, space.9, space.10, space.11, space.12, space.13, space.14, space.15,
        ]
        var bytes = Array(SHA1.hash(spaceBytes + name).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
}
