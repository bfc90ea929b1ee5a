#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This machine's IPv4 addresses, for the URLs `sdl ingest --host 0.0.0.0` prints: the ones a
/// phone on the same network can send to.
package enum NetworkAddresses {
    /// One interface's address.
    package struct Interface: Sendable, Equatable {
        /// The interface's name (`en0`, `eth0`).
        package var name: String
        /// Its IPv4 address in dotted form.
        package var address: String

        /// Creates an entry.
        /// - Parameters:
        ///   - name: The interface's name.
        ///   - address: Its IPv4 address in dotted form.
        package init(name: String, address: String) {
            self.name = name
            self.address = address
        }
    }

    /// Whether `text` is an IPv4 address in dotted form (`0.0.0.0`, `192.168.1.20`): the only
    /// form `--host` takes, because the ingest listens on IPv4 only.
    package static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// Whether `text` is in 127.0.0.0/8, which only this machine reaches.
    package static func isLoopback(_ text: String) -> Bool {
        text.hasPrefix("127.")
    }

    /// Every IPv4 address of an interface that is up, loopback left out, in the system's order;
    /// empty when the system does not say (the caller then prints only the local URL).
    package static func reachableFromTheNetwork() -> [Interface] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var found: [Interface] = []
        var next = first
        while let entry = next {
            next = entry.pointee.ifa_next
            let flags = Int32(truncatingIfNeeded: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                  let socketAddress = entry.pointee.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let converted = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var address = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            }
            guard converted != nil else { continue }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(truncatingIfNeeded: $0) }, as: UTF8.self)
            found.append(Interface(name: String(cString: entry.pointee.ifa_name), address: address))
        }
        return found
    }
}
