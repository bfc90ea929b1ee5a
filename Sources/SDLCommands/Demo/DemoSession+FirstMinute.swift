import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

extension DemoSession {
    /// Chapter 2: what an app tracks in its first minute, every property type, a back-dated
    /// event, then `flush()` and each event as the ingest accepted it.
    mutating func firstMinute() async -> String? {
        console.out("2. An app's first minute")
        client.setDeviceID("demo-device-7f3a")
        console.out("   setDeviceID(\"demo-device-7f3a\"): every later event carries it")
        console.out("   autocapture [.appLaunches, .sessions]: the SDK sends app_launched (is_first_launch)")
        console.out("   and session_start itself, and puts the session_id on every event")
        track("onboarding_done", ["app_version": "1.1.0"])
        client.trackScreen("home", properties: ["seq": .int(Int64(nextSeq))])
        nextSeq += 1
        client.trackScreen("editor", properties: ["seq": .int(Int64(nextSeq))])
        nextSeq += 1
        console.out("   trackScreen home, editor (screen_view events)")
        track("export_finished", ["format": "png", "pixels": 2_073_600, "seconds": 1.25, "retina": true])
        console.out("   track export_finished: a string, an integer, a number and a bool")
        let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        track("purchase_restored", ["store": "app_store"], at: twoDaysAgo)
        console.out("   track purchase_restored at: two days ago (back-dated; it keeps its real time)")
        let result = await client.flush()
        console.out("   flush(): delivered \(result.delivered), \(result.remaining) waiting; the ingest accepted:")
        if let failure = await waitForIngest(nextSeq, step: "first minute") { return failure }
        showArrivals()
        console.out("")
        return nil
    }
}
