import SimpleDataLogs

// Placeholder until the command-line issue lands: the demo needs the uploader and the local ingest.
let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "--version" {
    print("sdl \(SimpleDataLogsVersion.current)")
} else {
    print("sdl \(SimpleDataLogsVersion.current): the demo is not ready yet (it needs the uploader and the local ingest).")
}
