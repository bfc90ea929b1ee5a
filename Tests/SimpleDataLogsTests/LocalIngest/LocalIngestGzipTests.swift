import Foundation
import Testing
@testable import SimpleDataLogsTesting
@testable import SimpleDataLogs

@Suite("The local ingest's gzip inflation", .stuckTestLimit)
struct LocalIngestGzipTests {
    @Test("a gzip body round-trips, also as two concatenated members")
    func roundTrip() {
        let text = Data(String(repeating: "{\"event\":\"x\"}", count: 1_000).utf8)
        let once = [UInt8](IngestFixture.gzip(text))
        #expect(Gzip.inflate(once, limit: 1 << 20) == .success([UInt8](text)))
        #expect(Gzip.inflate(once + once, limit: 1 << 20) == .success([UInt8](text + text)))
    }

    @Test("inflation stops at the limit, so a small body cannot inflate without bound")
    func limit() {
        let bomb = [UInt8](IngestFixture.gzip(Data(count: 10_000_000)))
        #expect(bomb.count < 20_000)
        #expect(Gzip.inflate(bomb, limit: 262_144) == .failure(.tooLarge))
        #expect(Gzip.inflate([UInt8](IngestFixture.gzip(Data(count: 262_144))), limit: 262_144).map(\.count) == .success(262_144))
    }

    @Test("broken, truncated and empty input is refused without trapping")
    func corrupt() {
        let good = [UInt8](IngestFixture.gzip(Data("hello".utf8)))
        for input in [[], [0x1F, 0x8B], Array("not gzip at all".utf8), Array(good.dropLast(4)), good + [1, 2, 3]] {
            guard case .failure(.corrupt) = Gzip.inflate(input, limit: 1_000) else {
                Issue.record("accepted \(input)")
                continue
            }
        }
    }
}
