import Foundation
import Testing

/// The tests' own gate between pool saturations and the tests that bound real time
/// (Support/PoolSaturation.swift): a real-time bound read while the pool was blocked on purpose
/// measured the saturation (a 1 s limit read 8.5 s), so the two must never overlap.
@Suite("Test support: pool saturation and real-time bounds never overlap", .stuckTestLimit)
struct PoolSaturationGateTests {
    @Test("inside a test marked noPoolSaturation, a saturation cannot start: it waits for the gate and gives up at its limit", .noPoolSaturation)
    func markedTestHoldsTheGate() async throws {
        // Without the trait the pool would be blocked here, `check` would run and return true.
        await #expect(throws: TimedOut.self) {
            try await whileCooperativePoolIsBlocked(gateLimit: .milliseconds(200)) { true }
        }
    }
}
