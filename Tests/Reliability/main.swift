#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// The reliability suite's crash loop: one program, both the driver and its children.
//
//   reliability [--kills N] [--minutes M] [--rate R] [--phase-kills K] [--seed S] [--scale F] [--ci] [--keep]
//       the driver: kills a tracking child with SIGKILL again and again against a local ingest
//       that is up, down and flapping, flushes everything at the end, prints the figures, and
//       exits 1 if a journaled event was lost, a seq arrived under two event ids, or an event
//       was left on disk.
//   reliability child --folder F --endpoint URL --start-seq S --rate R
//       a child (see Child.swift).
// See README.md in this folder.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "child" {
    do {
        Child.run(try ChildOptions.parse(Array(arguments.dropFirst())))
    } catch {
        FileHandle.standardError.write(Data("\(error.message)\n\(DriverOptions.usage)\n".utf8))
        exit(64)
    }
}
let options: DriverOptions
do {
    options = try DriverOptions.parse(arguments, environment: ProcessInfo.processInfo.environment)
} catch {
    let text = error.message.isEmpty ? DriverOptions.usage : "\(error.message)\n\(DriverOptions.usage)"
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(error.message.isEmpty ? 0 : 64)
}
exit(await Driver.run(options))
