#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SDLCommands

// The whole tool lives in SDLCommands, where tests call it; this only runs it and exits.
let status = await SDL.run(
    Array(CommandLine.arguments.dropFirst()), console: StandardConsole(), environment: ProcessInfo.processInfo.environment
)
exit(status)
