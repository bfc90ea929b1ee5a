import Foundation
import Testing
@testable import SimpleDataLogs
import SimpleDataLogsTesting

@Suite("Lifecycle: what kind of process the SDK runs in decides what configure attaches")
struct ProcessKindTests {
    typealias Facts = ProcessKind.BundleFacts

    @Test("the rule: an .app bundle or package type APPL is an app; an .appex or an extension point in the Info.plist is an extension, even inside an app; anything else is not an app")
    func rule() {
        let cases: [(Facts, ProcessKind)] = [
            (Facts(path: "/Applications/Notes.app", packageType: "APPL", infoKeys: ["CFBundleIdentifier"]), .app),
            (Facts(path: "/Users/me/Library/Developer/Xcode/DerivedData/Build/Products/Debug/Notes.app/"), .app),
            (Facts(path: "/private/var/containers/Bundle/Application/ABC/Notes.app", packageType: "APPL"), .app),
            (Facts(path: "/Applications/Notes.app/Contents/PlugIns/Share.appex", packageType: "XPC!"), .appExtension),
            (Facts(path: "/var/containers/Bundle/Application/ABC/Notes.app/PlugIns/Widget.appex"), .appExtension),
            (Facts(path: "/opt/Notes.app/Extensions/Intents", packageType: "APPL", infoKeys: ["NSExtension"]), .appExtension),
            (Facts(path: "/opt/Extensions/Kit", infoKeys: ["EXAppExtensionAttributes"]), .appExtension),
            (Facts(path: "/usr/local/bin"), .other),                                    // a command-line tool
            (Facts(path: "/srv/api/.build/release"), .other),                           // a server
            (Facts(path: "/Library/Application Support/Daemon", packageType: "BNDL"), .other),
            (Facts(path: "/opt/application"), .other),                                  // no ".app" suffix
        ]
        for (facts, kind) in cases {
            #expect(ProcessKind.of(facts) == kind, "\(facts)")
        }
        #expect(ProcessKind.app.attachesAppLifecycle)
        #expect(!ProcessKind.appExtension.attachesAppLifecycle)
        #expect(!ProcessKind.other.attachesAppLifecycle)
        #expect(ProcessKind.app.warnsAboutSecretKey && !ProcessKind.appExtension.warnsAboutSecretKey && !ProcessKind.other.warnsAboutSecretKey)
    }

    @Test("this test runner, on Linux, is not an app: a client made the public way never attaches the app lifecycle")
    func thisProcess() {
        #expect(ProcessKind.current == .other, "\(ProcessKind.BundleFacts.main)")
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let client = SimpleDataLogsClient(logSink: RecordingLogSink())
        #expect(client.processKind == .other)
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_pub_test0000000000", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
        ))
        #expect(!client.attachesAppLifecycle)
    }

    @Test("configure with a secret key: a command-line process and an extension neither attach the app lifecycle nor warn; an app does both", arguments: [
        (ProcessKind.other, false, false), (.appExtension, false, false), (.app, true, true),
    ])
    func configureByKind(kind: ProcessKind, attaches: Bool, warns: Bool) async {
        let directory = TemporaryDirectory()
        let log = RecordingLogSink()
        var tuning = ClientTuning()
        tuning.startsUploader = false
        let client = SimpleDataLogsClient(
            clock: ManualClock(), wallClock: SettableWallClock(), logSink: log, tuning: tuning, environment: [:], processKind: kind
        )
        #expect(!client.attachesAppLifecycle, "nothing attached before configure")
        client.configure(SimpleDataLogsClient.Configuration(
            ingestKey: "sdl_sec_0123456789abcdef", endpoint: URL(string: "http://127.0.0.1:9")!, storageDirectory: directory.url
        ))
        #expect(client.attachesAppLifecycle == attaches)
        let warnings = log.lines(containing: "secret key")
        #expect(warnings.count == (warns ? 1 : 0), "\(log.lines)")
        if warns { #expect(warnings.first?.message.contains("sdl_sec_0123456789abcdef") == false, "the key is shown redacted") }
        await client.shutdown(timeLimit: .seconds(5))
        directory.remove()
    }
}
