import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Derived event ids: the caller's own key gives one id everywhere")
struct DerivedEventIDTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-1 matches the FIPS 180 vectors")
    func sha1() {
        #expect(Self.hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Self.hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Self.hex(SHA1.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000))) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(Self.hex(SHA1.hash(twoBlocks)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test("version 5 UUIDs equal Python's uuid.uuid5, the SDK's namespace included")
    func nameBased() throws {
        let dns = try #require(UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
        let url = try #require(UUID(uuidString: "6ba7b811-9dad-11d1-80b4-00c04fd430c8"))
        #expect(UUID.nameBased(Array("python.org".utf8), in: dns).uuidString.lowercased() == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
        #expect(UUID.nameBased(Array("https://simpledatalogs.com/ns/event-id".utf8), in: url) == UUID.eventKeyNamespace)
    }

    @Test("an event key gives the id Python computes, the same every time; namespaces and keys stay apart")
    func eventKeys() {
        // uuid.uuid5(uuid.UUID("7ee3c7e4-0e30-50d1-91d1-866a0507db86"), namespace + "\0" + key)
        #expect(UUID(eventKey: "evt_1NqzWZ2eZvKYlo2C", in: "stripe").uuidString.lowercased() == "de7f6ecd-00be-544f-ba56-9bffabcac2ec")
        #expect(UUID(eventKey: "evt_2", in: "stripe").uuidString.lowercased() == "2e14324b-d5b5-5680-a4e7-172e2f4408a5")
        #expect(UUID(eventKey: "Grüße/😀", in: "webhooks").uuidString.lowercased() == "fd18917c-5053-5f15-a995-646a60ec00dd")
        #expect(UUID(eventKey: "k", in: "n") == UUID(eventKey: "k", in: "n"))
        #expect(UUID(eventKey: "bc", in: "a") != UUID(eventKey: "c", in: "ab"), "the NUL between them keeps the parts apart")
        #expect(UUID(eventKey: "1", in: "stripe") != UUID(eventKey: "1", in: "github"))
        #expect(UUID(eventKey: "EVT_1", in: "stripe") != UUID(eventKey: "evt_1", in: "stripe"), "keys are taken as given")
        let id = UUID(eventKey: "x", in: "y").uuid
        #expect(id.6 >> 4 == 5, "version 5")
        #expect(id.8 >> 6 == 0b10, "the RFC 9562 variant")
    }

    @Test("one webhook handled by two pods (two clients, two folders): one event at the ingest, the second counted as a duplicate", .tags(.sockets))
    func twoPods() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let webhookID = "evt_\(UUID().uuidString)"
        for pod in ["pod-a", "pod-b"] {
            await withTestClient(endpoint: ingest.endpoint) { test in
                test.client.track("payment_succeeded", properties: ["pod": .string(pod)],
                                  eventID: UUID(eventKey: webhookID, in: "stripe"), deviceID: "customer-42")
                await test.client.flush()
            }
        }
        #expect(ingest.receivedEvents.count == 1)
        #expect(ingest.receivedEvents.first?.properties["pod"] == "pod-a", "the first handling is the one kept")
        #expect(ingest.summary.duplicates == 1)
        #expect(ingest.receivedEvents.first?.eventID == UUID(eventKey: webhookID, in: "stripe").uuidString.lowercased())
    }
}
