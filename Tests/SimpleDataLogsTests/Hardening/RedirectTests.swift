import Foundation
import Testing
import SDLCommands
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Hardening: a redirect is an answer, never followed", .stuckTestLimit, .tags(.sockets), .skippedInFastLoop)
struct RedirectTests {
    static let key = "sdl_sec_redirect_test_0000"

    @Test("301, 302, 303, 307, 308 to another host: the key never reaches it, each redirect is a failed try with one warning, and the events go once the edge answers", arguments: [301, 302, 303, 307, 308])
    func notFollowed(status: Int) async throws {
        let elsewhere = try LocalIngest()
        defer { elsewhere.stop() }
        try await withDelivery(key: Self.key) { delivery in
            let location = elsewhere.endpoint.absoluteString + "/v1/events"
            delivery.ingest.script([.redirect(status, to: location), .redirect(status, to: location)])
            delivery.track(0..<3)
            // A flush ignores the backoff, so it may meet one redirect or both; at most three flushes.
            for _ in 0..<3 where delivery.client.counters.delivered < 3 {
                await delivery.client.flush()
            }
            #expect(elsewhere.summary.requests == 0, "the other host never saw the request, nor the key")
            #expect(delivery.ingest.requests.map(\.status) == [status, status, 202])
            #expect(delivery.deliveredSeqs == [0, 1, 2])
            #expect(delivery.test.log.lines.filter { $0.level == .warning && $0.message.contains("HTTP \(status)") }.count == 1)
            #expect(delivery.client.counters.isBalanced)
        }
    }

    @Test("sdl send against a redirecting edge: exit 75, the event kept, the other host never asked")
    func sdlSend() async throws {
        let elsewhere = try LocalIngest()
        let edge = try LocalIngest()
        let folder = TemporaryDirectory("sdl-send")
        defer { elsewhere.stop(); edge.stop(); folder.remove() }
        // An edge that keeps redirecting (more answers than sdl send makes tries). The timeout
        // is only a bound: sdl send ends after its tries, in milliseconds; 3 s once ran out in a
        // loaded full run before the first answer came.
        edge.script(Array(repeating: .redirect(307, to: elsewhere.endpoint.absoluteString + "/v1/events"), count: 10))
        let (status, console) = await sdl(
            "send", "deploy_finished", "--endpoint", edge.endpoint.absoluteString, "--key", Self.key, "--storage", folder.path, "--timeout", "30"
        )
        #expect(status == 75, "\(console.errors)")
        #expect(console.errors.contains("307"))
        #expect(elsewhere.summary.requests == 0)
        #expect(OutboxInspector.inspect(root: folder.path).pendingEvents == 1)
    }
}
