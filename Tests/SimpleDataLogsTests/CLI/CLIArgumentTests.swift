import Testing
import SDLCommands
import SimpleDataLogs

@Suite("CLI: arguments, help and version", .stuckTestLimit)
struct CLIArgumentTests {
    @Test("--version prints the SDK's version")
    func version() async {
        let (status, console) = await sdl("--version")
        #expect(status == 0 && console.output == "sdl \(SimpleDataLogsVersion.current)" && console.output == "sdl 0.4.0")
    }

    @Test("--help on every command exits 0 and documents the exit status", arguments: [
        ["--help"], ["demo", "--help"], ["send", "--help"], ["ingest", "--help"], ["outbox", "--help"], ["outbox", "requeue", "-h"],
    ])
    func help(arguments: [String]) async {
        let (status, console) = await sdl(arguments)
        #expect(status == 0)
        #expect(console.output.contains("Usage:") && console.output.contains("Exit status"))
    }

    @Test("a usage error exits 64, says what was wrong and what to type instead", arguments: [
        (["frobnicate"], "unknown command frobnicate", "sdl --help"),
        (["send"], "event name is missing", "sdl send EVENT"),
        (["send", "e", "--key", "sdl_sec_x_000000", "--prop", "novalue"], "--prop needs key=value, not novalue", "--prop target=ios"),
        (["send", "e"], "no ingest key", "SDL_INGEST_KEY"),
        (["send", "e", "--key", "abc_secret_material"], "is not an ingest key", "--key"),
        (["send", "e", "--key", "sdl_sec_x_000000", "--timeout", "soon"], "--timeout must be a number of seconds", "--timeout 10"),
        (["send", "e", "--key", "sdl_sec_x_000000", "--endpoint", "localhost:4001"], "--endpoint must be an http:// or https:// URL", "http://localhost:4001"),
        (["send", "e", "f=1", "--key", "sdl_sec_x_000000"], "one event at a time", "--prop f=1"),
        (["send", "e", "--quiet"], "unknown option --quiet", "sdl send --help"),
        (["send", "e", "--key"], "--key needs a value", "sdl send --key VALUE"),
        (["ingest", "--port", "99999"], "--port must be a number from 0 to 65535", "--port 4001"),
        (["ingest", "--fail", "often"], "--fail takes STATUS:COUNT", "--fail 503:10"),
        (["ingest", "--latency-ms", "-5"], "--latency-ms must be", "--latency-ms 300"),
        (["ingest", "--key", "nope"], "--key must be an ingest key", "sdl_pub_"),
        (["ingest", "--host", "localhost"], "--host must be an IPv4 address", "sdl ingest --host 0.0.0.0"),
        (["ingest", "--host", "192.168.1"], "--host must be an IPv4 address", "sdl ingest --host 0.0.0.0"),
        (["ingest", "--host"], "--host needs a value", "sdl ingest --host VALUE"),
        (["outbox", "/a", "/b"], "one folder at a time", "sdl outbox DIR"),
        (["demo", "--burst", "lots"], "--burst must be a number", "sdl demo --burst 3000"),
    ])
    func usageErrors(arguments: [String], problem: String, hint: String) async {
        let (status, console) = await sdl(arguments)
        #expect(status == 64)
        #expect(console.errors.contains(problem), "\(console.errors)")
        #expect(console.errors.contains(hint), "\(console.errors)")
        #expect(console.output.isEmpty)
    }

    @Test("a key in a usage error is never shown in full")
    func keyNotEchoed() async {
        let (_, console) = await sdl("send", "e", "--key", "abc_secret_material_0123456789")
        #expect(!console.errors.contains("abc_secret_material_0123456789"))
    }

    @Test("no command at all prints the help and exits 64")
    func noCommand() async {
        let (status, console) = await sdl([])
        #expect(status == 64 && console.output.contains("sdl demo"))
    }
}
