// UsingItInAServer.md's Vapor 4 samples, compiled against stand-ins with Vapor's signatures (read
// from its source at 4.122.0).
//
// Shutdown (`Sources/Vapor/Application.swift`): `execute()` returns once the server was told to
// stop (SIGTERM/SIGINT), and `asyncShutdown()` runs the lifecycle handlers and then stops the HTTP
// server; so analytics, shut down after it, is the last to stop.
//
// The middleware (`Sources/Vapor/Concurrency/AsyncMiddleware.swift`,
// `Concurrency/Responder+Concurrency.swift`, `Request/Request.swift`): `AsyncMiddleware.respond(to:
// chainingTo:)` gets the `Request` (a class) and the next `AsyncResponder`; `request.id` is the
// `X-Request-Id` header when present, else a generated value; `request.headers` is NIO's
// `HTTPHeaders` (`first(name:)`, case-insensitive). An async route's handler runs in a `Task` that
// `AsyncResponder.respond(to:) -> EventLoopFuture` starts with `promise.completeWithTask` while
// the middleware's `next.respond(to:)` call is under way: an unstructured task, which inherits the
// task-local scope. `RouteTask` below reproduces that, and the test runs the middleware through it.
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

/// The samples and the stand-ins they compile against, in a namespace of their own (the Hummingbird
/// snippet has a `Request` and an `Application` of its own).
private enum VaporSnippet {
    struct Environment {}

    final class Application {
        var middleware = Middlewares()
        static func make(_ environment: Environment) async throws -> Application { Application() }
        func execute() async throws {}
        func asyncShutdown() async throws {}
    }

    func configure(_ app: Application) async throws {}

    func vapor(analytics: SimpleDataLogsClient, env: Environment) async throws {
        let app = try await Application.make(env)
        try await configure(app)
        try await app.execute()
        try await app.asyncShutdown()
        await analytics.shutdown()
    }

    // MARK: - Stand-ins for the middleware

    /// NIO's `HTTPHeaders`, the one call the sample makes.
    struct HTTPHeaders: Sendable {
        var fields: [(name: String, value: String)] = []
        func first(name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    final class Request: Sendable {
        let id: String
        let headers: HTTPHeaders
        init(id: String, headers: HTTPHeaders) {
            self.id = id
            self.headers = headers
        }
    }

    final class Response: Sendable {}

    protocol AsyncResponder: Sendable {
        func respond(to request: Request) async throws -> Response
    }

    protocol AsyncMiddleware: Sendable {
        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response
    }

    struct Middlewares {
        var all: [any AsyncMiddleware] = []
        mutating func use(_ middleware: any AsyncMiddleware) { all.append(middleware) }
    }

    // MARK: - The sample ("Scope every request")

    /// Runs every request inside its device id and request id.
    struct AnalyticsScopeMiddleware: AsyncMiddleware {
        let analytics: SimpleDataLogsClient

        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            // Vapor's request.id: the X-Request-Id header when the request has one, else a fresh id.
            try await analytics.withProperties(["request_id": .string(request.id)]) {
                // The id your app sends with each request (any stable, anonymous id of your choosing).
                guard let deviceID = request.headers.first(name: "X-Device-ID") else {
                    return try await next.respond(to: request)
                }
                return try await analytics.withDeviceID(deviceID) {
                    try await next.respond(to: request)
                }
            }
        }
    }

    func vaporMiddleware(app: Application, analytics: SimpleDataLogsClient) {
        app.middleware.use(AnalyticsScopeMiddleware(analytics: analytics))
    }
}

// MARK: - The test

extension VaporSnippet {
    /// An async route as Vapor runs it: the handler in a `Task` started while `next.respond(to:)`
    /// is under way (`promise.completeWithTask`), awaited through the future.
    struct RouteTask: AsyncResponder {
        let handler: @Sendable (Request) async throws -> Response
        func respond(to request: Request) async throws -> Response {
            try await Task { try await handler(request) }.value
        }
    }
}

@Suite("Docs: the Vapor middleware scopes each request", .stuckTestLimit, .skippedInFastLoop)
struct VaporMiddlewareTests {
    @Test("events tracked in a route (and its child tasks) carry the request's X-Device-ID and request id; without the header, the client's device id", .tags(.sockets))
    func scopesEachRequest() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            client.setDeviceID("server-itself")
            let middleware = VaporSnippet.AnalyticsScopeMiddleware(analytics: client)
            let route = VaporSnippet.RouteTask { request in
                client.track("route_handled", properties: ["seen_id": .string(request.id)])
                async let child: Void = client.track("child_task")
                await child
                return VaporSnippet.Response()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let headers = index == 0 ? VaporSnippet.HTTPHeaders() : VaporSnippet.HTTPHeaders(fields: [("x-device-id", "device-\(index)")])
                        _ = try await middleware.respond(to: VaporSnippet.Request(id: "req-\(index)", headers: headers), chainingTo: route)
                    }
                }
                try await group.waitForAll()
            }
            client.track("outside")
            try await withTimeLimit(waitingFor: "a flush") { _ = await client.flush() }
            try expectScopedRequests(delivery.ingest.receivedEvents, requestID: { "req-\($0)" }, marker: ("seen_id", { "req-\($0)" }))
        }
    }
}
