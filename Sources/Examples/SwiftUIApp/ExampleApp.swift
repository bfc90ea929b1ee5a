// README.md, "Quick start: an app": where the code goes in a SwiftUI app. On Apple platforms
// this compiles against SwiftUI itself (the macOS workflow builds it); on Linux against
// `SwiftUIStandIns.swift`, which has SwiftUI's signatures for the few names used here, so the
// README's sample is compiled on every change. Never run.
#if canImport(SwiftUI)
import SwiftUI
#endif
import SimpleDataLogs

@main
struct ExampleApp: App {
    init() {
        // Once, at launch: not in a view's onAppear, which runs again and again.
        SimpleDataLogs.configure(ingestKey: "sdl_pub_…", autocapture: .all)
    }

    var body: some Scene {
        WindowGroup {
            Text("Hello")
                .trackScreenView("home")
        }
    }
}
