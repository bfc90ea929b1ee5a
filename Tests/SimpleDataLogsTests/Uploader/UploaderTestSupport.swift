import CZlib
import Foundation
import SimpleDataLogsTesting

/// Shared helpers for the uploader's tests.
enum UploaderFixture {
    /// The wall clock the tests read: 2026-12-02 10:00:00 UTC (a Wednesday).
    static let now = Date(timeIntervalSince1970: 1_796_205_600)

    /// Inflates a gzip stream with zlib, independently of the code under test.
    static func gunzip(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let finished: Bool = input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let (code, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
                output += chunk[0..<produced]
                if code == Z_STREAM_END { return stream.avail_in == 0 }
                if code != Z_OK { return false }
            }
        }
        return finished ? output : nil
    }

    /// `count` realistic events as the encoder seals them: varied names, fresh ids, a device and
    /// a session, activity fields and a few properties. Deterministic for a given seed.
    static func realisticEvents(count: Int, seed: UInt64 = 42) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        func hexID() -> String {
            let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            let characters = Array(hex)
            return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
        }
        let device = hexID()
        let session = hexID()
        let names = ["screenshot_taken", "screen_view", "export_finished", "button_tapped", "session_start"]
        let screens = ["Home", "Settings", "Editor", "Library", "Share"]
        var ts: Int64 = 1_796_205_000_000
        return (0..<count).map { index in
            ts += Int64.random(in: 50...20_000, using: &generator)
            let name = names[Int.random(in: 0..<names.count, using: &generator)]
            let engaged = Int.random(in: 0...60_000, using: &generator)
            let props = #"{"type":"area","screen":"\#(screens[index % screens.count])","duration_ms":\#(Int.random(in: 1...5_000, using: &generator)),"is_pro":\#(Bool.random(using: &generator)),"ratio":\#(Double(Int.random(in: 0...1_000, using: &generator)) / 1_000)}"#
            let json = #"{"event":"\#(name)","event_id":"\#(hexID())","ts":\#(ts),"device_id":"\#(device)","session_id":"\#(session)","app_state":"active","engaged_ms":\#(engaged),"props":\#(props)}"#
            return Array(json.utf8)
        }
    }
}
