import Foundation
import Testing

/// The fast inner loop: `SDL_FAST_TESTS=1 swift test` skips every test tagged as slow (the tags
/// in Tags.swift), so a local run of the rest takes seconds; plain `swift test` (what CI runs)
/// runs them all.
///
/// Swift 6.3's `swift test` selects tests by name only (`--filter` and `--skip` take regular
/// expressions on the test's id, not its tags), so the tags are turned into skips here, read
/// once from the environment.
enum FastLoop {
    /// Whether this run is the fast inner loop (`SDL_FAST_TESTS=1`).
    static let isOn: Bool = ProcessInfo.processInfo.environment["SDL_FAST_TESTS"] == "1"

    /// The tags a fast run skips.
    static let slowTags: Set<Tag> = [.processes, .sockets, .burst, .poolSaturation]
}

/// Skips a test carrying one of ``FastLoop/slowTags`` when ``FastLoop/isOn``, naming the tag; on
/// a suite it applies to every test inside. A test without a slow tag runs whatever the mode.
/// The skip is `Test.cancel(_:)` before the body: a plain test is reported cancelled with the
/// reason, a parameterized one as passed with 0 test cases (none of its cases ran).
struct SkippedInFastLoopTrait: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        // Once per test function (not per suite, not per argument of a parameterized test).
        FastLoop.isOn && !test.isSuite && testCase == nil ? self : nil
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let slow = test.tags.intersection(FastLoop.slowTags)
        if !slow.isEmpty {
            try Test.cancel("SDL_FAST_TESTS=1 skips tests tagged \(slow.map { "\($0)" }.sorted().joined(separator: ", ")); `swift test` runs it")
        }
        try await function()
    }
}

extension Trait where Self == SkippedInFastLoopTrait {
    /// Skips the test (every test of the suite) in the fast inner loop when it carries a slow tag.
    static var skippedInFastLoop: Self { SkippedInFastLoopTrait() }
}
