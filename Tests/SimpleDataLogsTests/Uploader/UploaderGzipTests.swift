import Foundation
import SimpleDataLogsTesting
import Testing
@testable import SimpleDataLogs

@Suite("Uploader: gzip request bodies", .stuckTestLimit)
struct UploaderGzipTests {
    @Test("compressed bytes inflate back to the input, with zlib's inflate", arguments: [0, 1, 100, 70_000, 262_144])
    func roundTrip(size: Int) throws {
        var generator = SplitMix64(seed: UInt64(size))
        // Half text-like, half random, so both the matcher and the literal path are exercised.
        let input = (0..<size).map { index in index % 2 == 0 ? UInt8(ascii: "a") + UInt8(index % 26) : UInt8.random(in: 0...255, using: &generator) }
        let compressed = try #require(Gzip.compress(input))
        #expect(compressed.starts(with: [0x1F, 0x8B]), "a gzip header")
        #expect(try #require(UploaderFixture.gunzip(compressed)) == input)
    }

    @Test("incompressible input grows by at most the gzip framing")
    func incompressible() throws {
        var generator = SplitMix64(seed: 3)
        let input = (0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let compressed = try #require(Gzip.compress(input))
        #expect(compressed.count < input.count + 64)
        #expect(try #require(UploaderFixture.gunzip(compressed)) == input)
    }

    /// Recorded (zlib 1.2.13, level 6): a realistic batch of 50 events (fresh event ids, one device
    /// and one session id, activity fields, 5 properties; seed 42) is 16,398 bytes as JSON and
    /// 2,555 bytes gzipped, saving 13,843 bytes (84 %). The repeated keys, device and session ids
    /// are what compresses; the random event ids are most of what is left.
    @Test("on a realistic batch of 50 events gzip saves more than three quarters of the bytes")
    func realisticBatch() throws {
        let body = UploadRequestBuilder.body(payloads: UploaderFixture.realisticEvents(count: 50), sentAt: 1_796_205_600_000)
        let compressed = try #require(Gzip.compress(body))
        let saved = body.count - compressed.count
        print("gzip on 50 realistic events: \(body.count) → \(compressed.count) bytes, saved \(saved) (\(saved * 100 / body.count) %)")
        #expect(compressed.count * 100 / body.count < 25, "\(body.count) → \(compressed.count)")
        #expect(try #require(UploaderFixture.gunzip(compressed)) == body)
    }
}
