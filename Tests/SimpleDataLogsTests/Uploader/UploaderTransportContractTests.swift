import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import SimpleDataLogs

/// The in-memory transport of ``Transport``'s doc comment, verbatim, to prove the example compiles and works.
final class InMemoryTransport: Transport {
    private let state = Locked<(answers: [UploadResponse], sent: [UploadRequest])>(([], []))

    init(answers: [UploadResponse]) { state.withLock { $0.answers = answers } }

    var sent: [UploadRequest] { state.withLock { $0.sent } }

    func send(_ request: UploadRequest) async throws -> UploadResponse {
        try Task.checkCancellation()
        return try state.withLock { state in
            state.sent.append(request)
            guard !state.answers.isEmpty else {
                throw TransportError(.cannotConnect, message: "no answer scripted")
            }
            return state.answers.removeFirst()
        }
    }
}

@Suite("Uploader: the transport contract", .stuckTestLimit)
struct UploaderTransportContractTests {
    @Test("the doc comment's in-memory transport answers in order, records requests, and fails when out of answers")
    func inMemory() async throws {
        let transport = InMemoryTransport(answers: [UploadResponse(status: 202, body: Data(#"{"accepted":1}"#.utf8)), UploadResponse(status: 503, headers: ["Retry-After": "3"])])
        let request = UploadRequest(url: Endpoint.defaultBaseURL, headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        #expect(try await transport.send(request).status == 202)
        #expect(try await transport.send(request).header("retry-after") == "3")
        await #expect(throws: TransportError(.cannotConnect, message: "no answer scripted")) { try await transport.send(request) }
        #expect(transport.sent.count == 3 && transport.sent.first == request)
    }

    @Test("header lookup ignores case on requests and responses, and prefers the exact spelling")
    func headerLookup() {
        let response = UploadResponse(status: 503, headers: ["Retry-After": "7", "content-type": "application/json"])
        #expect(response.header("retry-after") == "7" && response.header("RETRY-AFTER") == "7" && response.header("Content-Type") == "application/json")
        #expect(response.header("X-Missing") == nil)
        let request = UploadRequest(url: Endpoint.defaultBaseURL, headers: ["Content-Encoding": "GZIP"])
        #expect(request.header("content-encoding") == "GZIP" && request.isGzipped)
        #expect(!UploadRequest(url: Endpoint.defaultBaseURL).isGzipped)
    }

    @Test("any thrown error is classified: our own kept, cancellation read as cancelled, anything else as other")
    func classification() {
        struct Odd: Error {}
        #expect(TransportError(classifying: TransportError(.timedOut, message: "t")) == TransportError(.timedOut, message: "t"))
        #expect(TransportError(classifying: CancellationError()).kind == .cancelled)
        #expect(TransportError(classifying: Odd()).kind == .other)
        #expect(TransportError(.cannotConnect, message: "refused").description == "cannotConnect: refused")
    }

    @Test("URLSession's errors map to the kinds the uploader tells apart", arguments: [
        (URLError.Code.cannotConnectToHost, TransportError.Kind.cannotConnect), (.cannotFindHost, .cannotConnect), (.notConnectedToInternet, .cannotConnect),
        (.dnsLookupFailed, .cannotConnect), (.timedOut, .timedOut), (.cancelled, .cancelled), (.networkConnectionLost, .other),
        (.secureConnectionFailed, .other), (.badServerResponse, .other),
    ])
    func urlErrors(code: URLError.Code, kind: TransportError.Kind) {
        let error = URLSessionTransport.classify(URLError(code))
        #expect(error.kind == kind)
        #expect(error.message.contains("\(code.rawValue)"))
    }

    @Test("the backstop timeout is whole seconds, rounded up, at least 1", arguments: [
        (Duration.zero, 1), (.milliseconds(1), 1), (.milliseconds(500), 1), (.seconds(1), 1), (.milliseconds(1_001), 2),
        (.milliseconds(1_500), 2), (.seconds(30), 30), (.nanoseconds(30_000_000_001), 31), (.seconds(-5), 1),
    ] as [(Duration, Int64)])
    func backstop(timeout: Duration, seconds: Int64) {
        #expect(URLSessionTransport.backstopSeconds(for: timeout) == seconds)
    }
}
