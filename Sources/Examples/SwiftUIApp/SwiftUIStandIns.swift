// Stand-ins with SwiftUI's signatures for the names `ExampleApp.swift` uses, so the README's app
// sample compiles on Linux. Not a SwiftUI: nothing here draws. On Apple platforms SwiftUI itself
// is used and this file is empty.
#if !canImport(SwiftUI)
import SimpleDataLogs

/// SwiftUI's `App`: an `init()`, a `body`, and a `main()` that `@main` calls.
protocol App {
    associatedtype Body: Scene
    init()
    var body: Body { get }
}

extension App {
    static func main() {
        _ = Self().body
    }
}

/// SwiftUI's `Scene`.
protocol Scene {}

/// SwiftUI's `View`.
protocol View {}

/// SwiftUI's `WindowGroup`, with the content closure its `init(content:)` takes.
struct WindowGroup<Content: View>: Scene {
    let content: Content

    init(content: () -> Content) {
        self.content = content()
    }
}

/// SwiftUI's `Text`.
struct Text: View {
    init(_ text: String) {}
}

/// A view with the SDK's modifier applied (the SDK's own returns `some View` under SwiftUI).
struct ScreenTrackingView<Content: View>: View {
    let content: Content
    let screen: String
}

extension View {
    /// The SDK's `.trackScreenView(_:properties:)` as SwiftUI code sees it.
    func trackScreenView(_ screen: String, properties: [String: PropertyValue] = [:]) -> some View {
        ScreenTrackingView(content: self, screen: screen)
    }
}
#endif
