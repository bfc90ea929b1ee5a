import Testing
import SimpleDataLogs
import SimpleDataLogsTesting

/// What the request-glue samples' tests expect of 20 requests run at once through a middleware
/// that scopes each request's ids (Vapor's and Hummingbird's): each request's two events (the
/// route's and a child task's) carry its request id and its device id (the client's own for
/// request 0, which sends none), the route's event carries `marker`, and an event tracked outside
/// every request carries neither.
func expectScopedRequests(
    _ events: [ReceivedEvent], requestID: (Int) -> String, marker: (name: String, value: (Int) -> String),
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(events.count == 41, sourceLocation: sourceLocation)
    for index in 0..<20 {
        let mine = events.filter { $0.properties["request_id"] == .string(requestID(index)) }
        #expect(mine.map(\.name).sorted() == ["child_task", "route_handled"], "request \(index)", sourceLocation: sourceLocation)
        #expect(mine.allSatisfy { $0.deviceID == (index == 0 ? "server-itself" : "device-\(index)") }, "request \(index)", sourceLocation: sourceLocation)
        #expect(mine.first { $0.name == "route_handled" }?.properties[marker.name] == .string(marker.value(index)), sourceLocation: sourceLocation)
    }
    let outside = try #require(events.first { $0.name == "outside" }, sourceLocation: sourceLocation)
    #expect(outside.properties["request_id"] == nil && outside.deviceID == "server-itself", "nothing leaks out of a request", sourceLocation: sourceLocation)
}
