/// Shutdown's word to the stages that run the app's middleware steps: the time limit ran out,
/// run no more steps.
///
/// A step is the app's code, on the stages thread, and may be slow or never return; shutdown
/// cannot interrupt it, so it raises this flag, and the identity and sessions stages look at it
/// before each event they would hand to the steps. Events they hold from then on are abandoned,
/// neither journaled nor counted by the stage: shutdown counts them all at once, as
/// ``DeliveryCounters/droppedAtShutdown`` (``Intake/settleAtShutdown()``), so a stage that comes
/// back after shutdown returned cannot count one twice.
final class StepsCutoff: Sendable {
    private let flag = Locked(false)

    /// Raises the flag; it stays raised.
    func cut() { flag.withLock { $0 = true } }

    /// Whether the steps' time is up. Read once per event, only by clients with middleware.
    var isCut: Bool { flag.withLock { $0 } }
}
