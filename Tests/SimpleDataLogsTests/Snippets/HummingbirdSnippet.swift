// UsingItInAServer.md's Hummingbird 2 samples, compiled against stand-ins with Hummingbird's
// signatures (read from its source at 2.26.0).
//
// Shutdown (`Sources/Hummingbird/Application.swift`): only the sample's own lines are checked
// here; Hummingbird's behaviour (user services stop after the HTTP server, through a
// ServiceGroup) is the ServiceGroup's, which `ServiceLifecycleTests` covers.
//
// The middleware (`Sources/Hummingbird/Middleware/Middleware.swift`, `Server/RequestContext.swift`,
// `Router/Router.swift`): `RouterMiddleware<Context>` is `MiddlewareProtocol` with `Request` in and
// `Response` out, and its one method is `handle(_:context:next:)`, `next` a non-escaping async
// closure; `context.id` is the id Hummingbird gave the request (its logger's `hb.request.id`, a
// `RequestID` it generates: no header is read); `request.headers` is swift-http-types' `HTTPFields`,
// subscripted by an `HTTPField.Name` (whose initializer is failable); `router.add(middleware:)`
// takes `any MiddlewareProtocol<Request, Response, Context>`. Router middleware runs in the task
// that handles the request and calls the route inside `next`, so a task-local scope around `next`
// covers the route: the test calls `handle` the same way.
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting
import Testing

/// The samples and the stand-ins they compile against, in a namespace of their own (the Vapor
/// snippet has a `Request` and an `Application` of its own).
private enum HummingbirdSnippet {
    /// Not `Sendable`, as Hummingbird's is not required to be: the sample must not need it.
    protocol RequestContext {
        var id: String { get }
    }

    struct BasicRequestContext: RequestContext {
        var id: String
    }

    final class Router<Context: RequestContext> {
        private(set) var middlewares: [any MiddlewareProtocol<Request, Response, Context>] = []
        init(context: Context.Type = BasicRequestContext.self) {}
        @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
            middlewares.append(middleware)
            return self
        }
    }

    struct Application {
        private var services: [any Service] = []
        init(router: Router<some RequestContext>) {}
        mutating func addServices(_ services: any Service...) { self.services += services }
        func runService() async throws {}
    }

    func hummingbird(analytics: SimpleDataLogsClient, router: Router<BasicRequestContext>) async throws {
        var app = Application(router: router)
        app.addServices(AnalyticsService(client: analytics))
        try await app.runService()
    }

    // MARK: - Stand-ins for the middleware

    enum HTTPField {
        struct Name: Hashable, Sendable {
            let canonicalName: String
            init?(_ name: String) {
                guard !name.isEmpty else { return nil }
                canonicalName = name.lowercased()
            }
        }
    }

    struct HTTPFields: Sendable {
        var fields: [HTTPField.Name: String] = [:]
        subscript(name: HTTPField.Name) -> String? { fields[name] }
    }

    struct Request: Sendable {
        var headers = HTTPFields()
    }

    struct Response: Sendable {}

    protocol MiddlewareProtocol<Input, Output, Context>: Sendable {
        associatedtype Input
        associatedtype Output
        associatedtype Context
        func handle(_ input: Input, context: Context, next: (Input, Context) async throws -> Output) async throws -> Output
    }

    protocol RouterMiddleware<Context>: MiddlewareProtocol where Input == Request, Output == Response {}

    // MARK: - The sample ("Scope every request")

    /// Runs every request inside its device id and request id.
    struct AnalyticsScopeMiddleware<Context: RequestContext>: RouterMiddleware {
        let analytics: SimpleDataLogsClient

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            // The proxy's X-Request-ID when there is one, else the id Hummingbird logs the request under.
            let requestID = request.headers[HTTPField.Name("X-Request-ID")!] ?? context.id
            return try await analytics.withProperties(["request_id": .string(requestID)]) {
                // The id your app sends with each request (any stable, anonymous id of your choosing).
                guard let deviceID = request.headers[HTTPField.Name("X-Device-ID")!] else {
                    return try await next(request, context)
                }
                return try await analytics.withDeviceID(deviceID) {
                    try await next(request, context)
                }
            }
        }
    }

    func hummingbirdMiddleware(analytics: SimpleDataLogsClient) {
        let router = Router()
        router.add(middleware: AnalyticsScopeMiddleware(analytics: analytics))
    }
}

// MARK: - The test

@Suite("Docs: the Hummingbird middleware scopes each request", .stuckTestLimit, .skippedInFastLoop)
struct HummingbirdMiddlewareTests {
    private typealias Snippet = HummingbirdSnippet

    private static func request(deviceID: String?, requestIDHeader: String?) -> Snippet.Request {
        var request = Snippet.Request()
        if let deviceID { request.headers.fields[Snippet.HTTPField.Name("x-device-id")!] = deviceID }
        if let requestIDHeader { request.headers.fields[Snippet.HTTPField.Name("x-request-id")!] = requestIDHeader }
        return request
    }

    @Test("events tracked in a route (and its child tasks) carry the request's X-Device-ID and its X-Request-ID, else the context's id; without a device header, the client's device id", .tags(.sockets))
    func scopesEachRequest() async throws {
        try await withDelivery { delivery in
            let client = delivery.client
            client.setDeviceID("server-itself")
            let middleware = Snippet.AnalyticsScopeMiddleware<Snippet.BasicRequestContext>(analytics: client)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let request = Self.request(deviceID: index == 0 ? nil : "device-\(index)", requestIDHeader: index == 1 ? "proxy-1" : nil)
                        _ = try await middleware.handle(request, context: Snippet.BasicRequestContext(id: "hb-\(index)")) { _, context in
                            client.track("route_handled", properties: ["context_id": .string(context.id)])
                            async let child: Void = client.track("child_task")
                            await child
                            return Snippet.Response()
                        }
                    }
                }
                try await group.waitForAll()
            }
            client.track("outside")
            try await withTimeLimit(waitingFor: "a flush") { _ = await client.flush() }
            try expectScopedRequests(
                delivery.ingest.receivedEvents, requestID: { $0 == 1 ? "proxy-1" : "hb-\($0)" }, marker: ("context_id", { "hb-\($0)" })
            )
        }
    }
}
