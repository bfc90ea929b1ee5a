import CZlib

/// Inflates the uploader's gzip bodies (`Content-Encoding: gzip`), with a cap on the output.
///
/// The uploader compresses with the SDK's own zlib deflate, so this is the other half; a cap
/// keeps a wrong body from inflating without bound.
enum Gunzip {
    /// Inflates `input`, which may hold several concatenated gzip members.
    /// - Parameters:
    ///   - input: The compressed bytes.
    ///   - limit: The most output bytes accepted.
    /// - Returns: The inflated bytes, or `nil` when the input is not complete gzip or inflates past `limit`.
    static func inflate(_ input: [UInt8], limit: Int) -> [UInt8]? {
        guard !input.isEmpty else { return nil }
        var stream = z_stream()
        // 15 + 16: the largest window, and a gzip header and trailer expected.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        // A JSON batch deflates about tenfold; start there to grow the output once or not at all.
        output.reserveCapacity(min(limit, input.count * 10))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        return input.withUnsafeMutableBufferPointer { inputBuffer -> [UInt8]? in
            guard let base = inputBuffer.baseAddress, let count = UInt32(exactly: inputBuffer.count) else { return nil }
            stream.next_in = base
            stream.avail_in = count
            while true {
                let (code, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    guard let outBase = out.baseAddress else { return (Z_MEM_ERROR, 0) }
                    stream.next_out = outBase
                    stream.avail_out = UInt32(out.count)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                switch code {
                case Z_STREAM_END:
                    guard stream.avail_in > 0 else { return output }
                    // Another gzip member follows (concatenated gzip is valid gzip).
                    guard inflateReset(&stream) == Z_OK else { return nil }
                case Z_OK:
                    continue
                default:
                    return nil
                }
            }
        }
    }
}
