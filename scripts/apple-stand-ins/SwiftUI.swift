// Stand-in for SwiftUI (the parts `Platform/TrackScreenViewModifier.swift` and the README's app,
// `Sources/Examples/SwiftUIApp`, use), from developer.apple.com/documentation/swiftui.
// Type-checked against, never run: nothing here draws.

/// https://developer.apple.com/documentation/swiftui/view
/// `@MainActor protocol View` with `associatedtype Body : View` and
/// `@ViewBuilder @MainActor var body: Self.Body { get }`. (Apple's declaration is also
/// `@preconcurrency`; without it this stand-in is the stricter of the two.)
@MainActor
public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

/// https://developer.apple.com/documentation/swift/never (SwiftUI makes `Never` a `View`, the
/// `Body` of primitive views).
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder (one child only; enough here).
@resultBuilder
public enum ViewBuilder {
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
}

/// https://developer.apple.com/documentation/swiftui/scenebuilder (one scene only; enough here).
@resultBuilder
public enum SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

/// https://developer.apple.com/documentation/swiftui/modifiedcontent
/// `@frozen struct ModifiedContent<Content, Modifier>`; a `View` when its content is one.
public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
}

extension ModifiedContent: View where Content: View {
    public var body: Never { fatalError("stand-in") }
}

/// What `onAppear(perform:)` returns (Apple's is private; it is `some View` to callers).
public struct AppearActionModifier {
    let action: (() -> Void)?
}

extension View {
    /// https://developer.apple.com/documentation/swiftui/view/onappear(perform:)
    /// `nonisolated func onAppear(perform action: (() -> Void)? = nil) -> some View`
    public nonisolated func onAppear(perform action: (() -> Void)? = nil) -> some View {
        ModifiedContent(content: self, modifier: AppearActionModifier(action: action))
    }
}

/// https://developer.apple.com/documentation/swiftui/text
/// `@frozen struct Text`, `nonisolated init<S>(_ content: S) where S : StringProtocol`.
public struct Text: View {
    public nonisolated init<S: StringProtocol>(_ content: S) {}
    public var body: Never { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/scene
/// `@MainActor protocol Scene` with `associatedtype Body : Scene` and
/// `@SceneBuilder @MainActor var body: Self.Body { get }`.
@MainActor
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
}

extension Never: Scene {}

/// https://developer.apple.com/documentation/swiftui/windowgroup
/// `struct WindowGroup<Content> where Content : View`,
/// `init(@ViewBuilder content: () -> Content)`.
public struct WindowGroup<Content: View>: Scene {
    public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError("stand-in") }
}

/// https://developer.apple.com/documentation/swiftui/app
/// `@MainActor protocol App` with `associatedtype Body : Scene`,
/// `@SceneBuilder @MainActor var body: Self.Body { get }`, `@MainActor init()`, and
/// `@MainActor static func main()` (what `@main` calls).
@MainActor
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
    init()
}

extension App {
    /// https://developer.apple.com/documentation/swiftui/app/main()
    public static func main() { fatalError("stand-in") }
}
