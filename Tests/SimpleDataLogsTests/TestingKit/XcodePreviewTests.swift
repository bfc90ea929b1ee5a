import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Xcode previews: nothing is sent and nothing is written", .stuckTestLimit, .skippedInFastLoop)
struct XcodePreviewTests {
    static let preview = [XcodePreviewRule.environmentVariable: "1"]

    @Test("the rule reads XCODE_RUNNING_FOR_PREVIEWS=1 and nothing else")
    func rule() {
        #expect(XcodePreviewRule.applies(to: ["XCODE_RUNNING_FOR_PREVIEWS": "1"]))
        #expect(!XcodePreviewRule.applies(to: [:]))
        #expect(!XcodePreviewRule.applies(to: ["XCODE_RUNNING_FOR_PREVIEWS": "0"]))
        #expect(!XcodePreviewRule.applies(to: ["XCODE_RUNNING_FOR_PREVIEWS": ""]))
        var tuning = ClientTuning()
        tuning.backoffScale = 0.5
        let previewTuning = XcodePreviewRule.tuning(from: tuning)
        #expect(!previewTuning.startsUploader && previewTuning.backoffScale == 0.5)
    }

    @Test("in a preview, a client with a RecordingTransport tracks and flushes, and the transport hears nothing; one info line says why")
    func previewSendsNothingToTheTransport() async throws {
        let transport = RecordingTransport()
        await withTestClient(
            environment: Self.preview, endpoint: RecordingTransportTests.unreachable,
            adjust: { $0.transport = transport; $0.logLevel = .info; $0.autocapture = [.appLaunches, .sessions] }
        ) { test in
            test.client.setDeviceID("preview-device")
            for seq in 0..<3 { test.client.track("e", properties: ["seq": .int(Int64(seq))]) }
            let result = await test.client.flush()
            #expect(result.delivered == 0)
            #expect(transport.sentRequests.isEmpty && transport.requests.isEmpty)
            let counters = test.client.counters
            // The outbox holds them in memory, and the counters say so.
            #expect(counters.tracked >= 3 && counters.pendingInMemory == counters.tracked && counters.pendingOnDisk == 0 && counters.delivered == 0 && counters.isBalanced, "\(counters)")
            #expect(!FileManager.default.fileExists(atPath: test.directory.path), "the configured folder is never made")
            let lines = test.log.lines
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.level == .info)
            #expect(lines.first?.message.contains("Xcode preview (XCODE_RUNNING_FOR_PREVIEWS=1)") == true)
            #expect(lines.first?.message.contains("sdl_pub_test0000000000") == false, "the key redacted")
            await test.client.shutdown()
            #expect(transport.sentRequests.isEmpty, "nor at shutdown")
            #expect(test.log.lines.count == 1)
        }
    }

    @Test("in a preview, the default transport never reaches a live ingest, and no folder is made from SDL_STORAGE_DIR or HOME", .tags(.sockets))
    func previewSendsNothingOverTheNetwork() async throws {
        let ingest = try LocalIngest()
        defer { ingest.stop() }
        let home = TemporaryDirectory("sdl-preview-home")
        let storage = TemporaryDirectory("sdl-preview-storage")
        defer { home.remove(); storage.remove() }
        var environment = Self.preview
        environment["HOME"] = home.path
        environment["SDL_STORAGE_DIR"] = storage.path
        await withTestClient(environment: environment, endpoint: ingest.endpoint, adjust: { $0.storageDirectory = nil }) { test in
            test.client.track("e")
            await test.client.flush()
            await test.client.shutdown()
        }
        #expect(ingest.summary.requests == 0)
        #expect(!FileManager.default.fileExists(atPath: storage.path))
        #expect(!FileManager.default.fileExists(atPath: home.path))
    }

    @Test("the control: the same client outside a preview sends to the transport and writes its folder")
    func outsideAPreview() async throws {
        let transport = RecordingTransport()
        await withTestClient(
            environment: ["XCODE_RUNNING_FOR_PREVIEWS": "0"], endpoint: RecordingTransportTests.unreachable,
            adjust: { $0.transport = transport; $0.logLevel = .info }
        ) { test in
            test.client.track("e")
            await test.client.flush()
            #expect(transport.receivedEvents.count == 1)
            #expect(FileManager.default.fileExists(atPath: test.directory.path))
            #expect(test.log.lines(containing: "Xcode preview").isEmpty)
        }
    }
}
