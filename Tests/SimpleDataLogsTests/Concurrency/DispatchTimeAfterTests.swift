import Dispatch
import Testing
@testable import SimpleDataLogs

@Suite("DispatchTime.after: the deadline of every bounded blocking wait", .stuckTestLimit)
struct DispatchTimeAfterTests {
    @Test("a duration from now, to the nanosecond; huge ones saturate, negative ones are now")
    func after() {
        let before = DispatchTime.now().uptimeNanoseconds
        let deadline = DispatchTime.after(.milliseconds(1_500)).uptimeNanoseconds
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(deadline >= before + 1_500_000_000 && deadline <= after + 1_500_000_000)
        #expect(DispatchTime.after(.seconds(Int64.max)) == .distantFuture)
        #expect(DispatchTime.after(.seconds(-5)).uptimeNanoseconds <= DispatchTime.now().uptimeNanoseconds)
    }
}
