// README.md, "Quick start: an app": where the code goes in a SwiftUI app. On Apple platforms
// this compiles against SwiftUI itself (the macOS workflow builds it); on Linux against
// `SwiftUIStandIns.swift`, which has SwiftUI's signatures for the few names used here, so the
// README's sample is compiled on every change. Never run.
#if canImport(SwiftUI)
import SwiftUI
#endif
import Foundation
import SimpleDataLogs

@main
struct ExampleApp: App {
    init() {
        // Once, at launch: not in a view's onAppear, which runs again and again.
        #if DEBUG
        // Debug builds send to `swift run sdl ingest --port 4001` on this Mac (and from the iOS Simulator).
        let endpoint = URL(string: "http://127.0.0.1:4001")!
        #else
        let endpoint = SimpleDataLogsClient.Configuration.defaultEndpoint
        #endif
        // usesInstallID: every event carries a device id, a random one the SDK keeps for this install.
        SimpleDataLogs.configure(ingestKey: "sdl_pub_…", endpoint: endpoint, autocapture: .all, usesInstallID: true)
    }

    var body: some Scene {
        WindowGroup {
            Text("Hello")
                .trackScreenView("home")
        }
    }
}
