#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SimpleDataLogs
import SimpleDataLogsTesting

/// Figure 2: sustained events/s from `track()` into the journal on disk, uploads off, with the
/// SDK's real policy (batches of 50, each made durable with `fdatasync` and renamed by the
/// sealer thread), against encoding the same event with the same encoder and framing and writing
/// it with one `write(2)` per 64 events.
///
/// Method: one producer thread keeps at most 4,000 events waiting (tracked minus
/// `journalWatermark.eventsWritten`), so the backlog never skips and the journal is never idle;
/// the rate is the watermark's growth over the measured window, after a warm-up.

struct JournalThroughputBenchmark {
    let options: Options
    let report: Report

    private var runs: Int { options.quick ? 1 : 3 }
    private var window: Double { options.quick ? 0.4 : 2.0 }

    func run() async {
        guard let folder = try? TemporaryFolder("journal") else { report.broken("could not make a temporary folder"); return }
        defer { folder.remove() }
        var baseline: [Double] = []
        for run in 0..<runs {
            baseline.append(baselineRate(path: folder.path + "/baseline-\(run).log"))
        }
        let base = Measure.median(baseline)
        report.add(Figure.ofRuns("journal.baseline_write", baseline, unit: "events/s", note: "same encoder and framing, one write(2) per 64 events, no fsync"))
        var diskBounds: [Double] = []
        for run in 0..<runs {
            diskBounds.append(diskBoundRate(folder: folder.path + "/disk-\(run)", eventsPerFile: 50))
        }
        let diskBound = Measure.median(diskBounds)
        report.add(Figure.ofRuns(
            "journal.disk_bound", diskBounds, unit: "events/s", baseline: base,
            note: "the file system alone, one durable file per 50 events by the sealer's recipe (write, sync_file_range, fdatasync, folder fsync, rename; groups of 64): the most any SDK that seals each batch of 50 durably can journal here"
        ))

        for batchSize in [50, 1_000] {
            var rates: [Double] = []
            var seals: [Double] = []
            for run in 0..<runs {
                let (rate, skipped, batches) = await sdkRate(folder: folder.url.appendingPathComponent("sdk-\(batchSize)-\(run)"), batchSize: batchSize)
                rates.append(rate)
                seals.append(batches)
                if skipped > 0 { report.note("journal: \(skipped) events skipped in a paced run") }
            }
            let name = batchSize == 50 ? "journal.sdk" : "journal.sdk.batch1000"
            if batchSize == 50 {
                report.add(Figure.ofRuns(
                    "journal.sdk.of_disk_bound", rates, unit: "events/s", baseline: diskBound,
                    note: "journal.sdk against journal.disk_bound of the same run: the share of what the disk allows at batches of 50"
                ))
            }
            let met: ((Double) -> Bool)? = batchSize == 50 ? { $0 >= 500_000 && $0 >= 0.4 * base } : nil
            report.add(Figure.ofRuns(
                name, rates, unit: "events/s", baseline: base,
                target: batchSize == 50 ? ">= 500,000/s and >= 40% of baseline" : nil, met: met,
                note: "batch size \(batchSize) (\(batchSize == 50 ? "the default" : "the server maximum")); about \(Int(Measure.median(seals))) seals/s; each journal handed to the sealer thread, which fdatasyncs and renames it, in groups"
            ))
        }
    }

    /// One run of the SDK: returns the rate, the events skipped, and the seals per second.
    private func sdkRate(folder: URL, batchSize: Int) async -> (Double, Int, Double) {
        let client = BenchEvent.makeClient(folder: folder, batchSize: batchSize)
        let warmUp = 0.2
        let start = Measure.now()
        var seq = 0
        var windowStart: (time: UInt64, written: Int)?
        var windowEnd: (time: UInt64, written: Int)?
        while windowEnd == nil {
            let written = client.journalWatermark.eventsWritten
            let now = Measure.now()
            let elapsed = Measure.seconds(start, now)
            if windowStart == nil, elapsed >= warmUp { windowStart = (now, written) }
            if let begun = windowStart, Measure.seconds(begun.time, now) >= window { windowEnd = (now, written) }
            let room = 4_000 - (seq - written)
            if room < 64 {
                Measure.sleep(microseconds: 20)
                continue
            }
            for _ in 0..<room {
                client.track(BenchEvent.name, properties: BenchEvent.properties(seq))
                seq += 1
            }
        }
        let skipped = client.counters.skippedBacklog
        await client.shutdown(timeLimit: .seconds(2))
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        _ = files
        guard let begun = windowStart, let ended = windowEnd else { return (0, skipped, 0) }
        let seconds = Measure.seconds(begun.time, ended.time)
        let rate = Double(ended.written - begun.written) / seconds
        return (rate, skipped, rate / Double(batchSize))
    }

    /// What the file system itself allows at one durable file per `eventsPerFile` events: the
    /// sealer's recipe with nothing of the SDK around it. Each file gets the framed records of
    /// `eventsPerFile` real events (encoded once, before the clock starts); per group of 64
    /// files, `sync_file_range(WRITE)` on each, `fdatasync` on each, one `fsync` of the folder,
    /// then a rename of each into a second folder. Journaling can go no faster than this while
    /// every batch of 50 is made durable on its own.
    private func diskBoundRate(folder: String, eventsPerFile: Int) -> Double {
        let journals = folder + "/journals"
        let batches = folder + "/batches"
        guard mkdir(folder, 0o700) == 0, mkdir(journals, 0o700) == 0, mkdir(batches, 0o700) == 0 else {
            report.broken("could not make \(folder)")
            return 0
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var ids = EventIDGenerator()
        let now = SystemWallClock().nowMilliseconds
        var scratch: [UInt8] = []
        var bytes: [UInt8] = []
        for seq in 0..<eventsPerFile {
            BenchmarkSupport.appendFramedRecord(
                name: BenchEvent.name, properties: BenchEvent.properties(seq), id: ids.next(milliseconds: now), timestamp: now,
                scratch: &scratch, to: &bytes
            )
        }
        typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
        // Not exported by Glibc's module (it needs _GNU_SOURCE); the SDK finds it the same way.
        let startWriteback = dlsym(nil, "sync_file_range").map { unsafeBitCast($0, to: SyncFileRange.self) }
        let files = options.quick ? 256 : 1_536
        let group = 64
        let folderDescriptor = open(journals, O_RDONLY | O_DIRECTORY)
        defer { close(folderDescriptor) }
        let start = Measure.now()
        for first in stride(from: 0, to: files, by: group) {
            var descriptors: [Int32] = []
            for index in first..<(first + group) {
                let descriptor = open(journals + "/\(index)", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { report.broken("disk bound: open failed, errno \(errno)"); return 0 }
                writeAll(descriptor, bytes)
                descriptors.append(descriptor)
            }
            for descriptor in descriptors { _ = startWriteback?(descriptor, 0, 0, 2) }
            for descriptor in descriptors { _ = fdatasync(descriptor) }
            _ = fsync(folderDescriptor)
            for (offset, descriptor) in descriptors.enumerated() {
                _ = rename(journals + "/\(first + offset)", batches + "/\(first + offset)")
                close(descriptor)
            }
        }
        return Double(files * eventsPerFile) / Measure.seconds(start, Measure.now())
    }

    /// The baseline: stamp, encode and frame each event, one `write(2)` per 64 events.
    private func baselineRate(path: String) -> Double {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { report.broken("could not open \(path)"); return 0 }
        defer {
            close(descriptor)
            unlink(path)
        }
        let events = options.quick ? 50_000 : 400_000
        let wallClock = SystemWallClock()
        var ids = EventIDGenerator()
        var scratch: [UInt8] = []
        scratch.reserveCapacity(512)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64 * 300)
        let start = Measure.now()
        for seq in 0..<events {
            let now = wallClock.nowMilliseconds
            BenchmarkSupport.appendFramedRecord(
                name: BenchEvent.name, properties: BenchEvent.properties(seq), id: ids.next(milliseconds: now), timestamp: now,
                scratch: &scratch, to: &buffer
            )
            if seq % 64 == 63 {
                writeAll(descriptor, buffer)
                buffer.removeAll(keepingCapacity: true)
            }
            // Keep the file small: start it again every 20,000 events (about 5 MB).
            if seq % 20_000 == 19_999 { _ = ftruncate(descriptor, 0) }
        }
        writeAll(descriptor, buffer)
        return Double(events) / Measure.seconds(start, Measure.now())
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 { if errno == EINTR { continue }; report.broken("write failed: errno \(errno)"); return }
                offset += written
            }
        }
    }
}
