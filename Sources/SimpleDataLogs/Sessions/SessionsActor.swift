/// The sessions stage: adds `session_id` and activity to events, and sends `session_start` and
/// `session_end`. Until the sessions work lands it passes every chunk through unchanged; it
/// already sits in the pipeline so that the wiring, the ordering and the tests do not change.
actor SessionsActor {
    nonisolated let executor: ThreadExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: ThreadExecutor) {
        self.executor = executor
    }

    /// Passes each chunk from `input` to `output`, in order, and finishes `output` after `input`.
    func run(input: AsyncStream<[PipelineItem]>, output: AsyncStream<[PipelineItem]>.Continuation) async {
        for await chunk in input {
            output.yield(chunk)
        }
        output.finish()
    }
}
