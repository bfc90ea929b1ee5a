import CZlib

/// Gzip (or zlib) inflation with a cap on the output, for the SDK's other products: the testing
/// kit's local ingest and collector read request bodies with it, and the OTLP transport reads the
/// uploader's gzip bodies. The SDK itself only compresses (``Gzip/compress(_:)``).
///
/// The cap matters: an ingest's size limit is on the body after decompression, and a small gzip
/// body can inflate to gigabytes, so inflation stops as soon as the output passes the cap.
extension Gzip {
    /// Why a body could not be inflated.
    package enum Failure: Error, Sendable, Equatable {
        /// The output would be larger than the cap.
        case tooLarge
        /// The input is not a complete gzip stream.
        case corrupt(String)
    }

    /// Inflates `input`, which may hold several concatenated gzip members.
    /// - Parameters:
    ///   - input: The compressed bytes.
    ///   - limit: The most output bytes accepted.
    /// - Returns: The inflated bytes, or why not.
    package static func inflate(_ input: [UInt8], limit: Int) -> Result<[UInt8], Failure> {
        guard !input.isEmpty else { return .failure(.corrupt("empty body")) }
        var stream = z_stream()
        // 15 + 32: the largest window, and detect a gzip or zlib header automatically.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(.corrupt("zlib could not start"))
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        return input.withUnsafeMutableBufferPointer { inputBuffer -> Result<[UInt8], Failure> in
            guard let base = inputBuffer.baseAddress else { return .failure(.corrupt("empty body")) }
            stream.next_in = base
            stream.avail_in = UInt32(inputBuffer.count)
            while true {
                let (code, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    guard let outBase = out.baseAddress else { return (Z_MEM_ERROR, 0) }
                    stream.next_out = outBase
                    stream.avail_out = UInt32(out.count)
                    let code = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return .failure(.tooLarge) }
                switch code {
                case Z_STREAM_END:
                    guard stream.avail_in > 0 else { return .success(output) }
                    // Another gzip member follows (concatenated gzip is valid gzip).
                    guard inflateReset(&stream) == Z_OK else { return .failure(.corrupt("zlib could not reset")) }
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return .failure(.corrupt("the gzip stream is truncated"))
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "code \(code)"
                    return .failure(.corrupt("the body does not inflate: \(message)"))
                }
            }
        }
    }
}
