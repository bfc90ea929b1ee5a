import CZlib

/// Gzip compression of request bodies, through the system's zlib.
///
/// Foundation cannot compress on Linux, and zlib is on every machine that has the toolchain and
/// in Apple's SDKs, so the SDK links it directly instead of carrying a dependency. `package`:
/// the OTLP transport (`SimpleDataLogsOTLP`) compresses its bodies the same way.
package enum Gzip {
    /// Compresses `bytes` into one gzip member (level 6, zlib's default balance of speed and size).
    /// - Parameter bytes: The body to compress.
    /// - Returns: The gzip bytes, or `nil` if zlib failed (the caller then sends the body as it is).
    package static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // 15 + 16: the largest window, and a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { deflateEnd(&stream) }
        guard let inputCount = UInt32(exactly: bytes.count) else { return nil }
        // deflateBound is the worst case for one Z_FINISH call; the gzip header and trailer are
        // included for a gzip stream, and the slack covers nothing else.
        let capacity = Int(deflateBound(&stream, UInt(bytes.count))) + 32
        var output = [UInt8](repeating: 0, count: capacity)
        var input = bytes
        let result: (code: Int32, produced: Int) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = inputCount
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                let code = deflate(&stream, Z_FINISH)
                return (code, outBuffer.count - Int(stream.avail_out))
            }
        }
        guard result.code == Z_STREAM_END else { return nil }
        output.removeSubrange(result.produced...)
        return output
    }
}
