#if canImport(SwiftUI)
public import SwiftUI

extension View {
    /// Sends `screen_view` with a `screen` property each time this view appears. Not part of a
    /// Linux build (Linux CI type-checks it against a SwiftUI stand-in); it only calls ``SimpleDataLogs/trackScreen(_:properties:)``.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties.
    /// - Returns: The view, tracked.
    public func trackScreenView(_ screen: String, properties: [String: PropertyValue] = [:]) -> some View {
        onAppear { SimpleDataLogs.trackScreen(screen, properties: properties) }
    }

    /// Sends `screen_view` through `client` (an app that makes its own client, not the shared
    /// one) each time this view appears.
    /// - Parameters:
    ///   - screen: The screen's name.
    ///   - properties: More properties.
    ///   - client: The client that tracks it.
    /// - Returns: The view, tracked.
    public func trackScreenView(_ screen: String, properties: [String: PropertyValue] = [:], client: SimpleDataLogsClient) -> some View {
        onAppear { client.trackScreen(screen, properties: properties) }
    }
}
#endif
