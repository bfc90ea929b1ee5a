import SimpleDataLogs

/// A task's value, or `nil` when a time limit passes first, without waiting for the task.
///
/// Why not ``Deadline``: its task group waits for every child before it returns, so work that
/// cannot be cancelled (the SDK's recovery of a large folder, behind `shutdown`) holds it past
/// the limit. Here the task keeps running unwatched; the command's process ends soon after.
enum FirstOf {
    static func value(of work: Task<Int32, Never>, within limit: Duration) async -> Int32? {
        let pending = Locked<CheckedContinuation<Int32?, Never>?>(nil)
        var watchers: [Task<Void, Never>] = []
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            pending.withLock { $0 = continuation }
            watchers.append(Task {
                let status = await work.value
                pending.withLock { $0.take() }?.resume(returning: status)
            })
            watchers.append(Task {
                try? await Task.sleep(for: limit)
                pending.withLock { $0.take() }?.resume(returning: nil)
            })
        }
        for watcher in watchers { watcher.cancel() }
        return result
    }
}
