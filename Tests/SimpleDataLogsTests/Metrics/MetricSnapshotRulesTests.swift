import Testing
@testable import SimpleDataLogs

@Suite("Metrics: the snapshot rules and the increments, without a clock or a task", .stuckTestLimit)
struct MetricSnapshotRulesTests {
    static func snapshot(tracked: Int = 0, delivered: Int = 0, pendingOnDisk: Int = 0, answered: Int = 0, roundTrip: Duration? = nil) -> MetricSnapshot {
        var counters = DeliveryCounters()
        counters.tracked = tracked
        counters.delivered = delivered
        counters.pendingOnDisk = pendingOnDisk
        return MetricSnapshot(counters: counters, requestsAnswered: answered, lastRoundTrip: roundTrip)
    }

    @Test("the first snapshot always goes; a tick yields only a change; the final one goes once, if it changed")
    func changes() {
        var changes = SnapshotChanges()
        let zero = Self.snapshot()
        #expect(changes.subscribed(zero) == zero, "even an all-zero first snapshot is yielded")
        #expect(changes.tick(zero) == nil, "nothing changed")
        let three = Self.snapshot(tracked: 3, pendingOnDisk: 3)
        #expect(changes.tick(three) == three)
        #expect(changes.tick(three) == nil)
        let answered = Self.snapshot(tracked: 3, pendingOnDisk: 3, answered: 1, roundTrip: .milliseconds(80))
        #expect(changes.tick(answered) == answered, "an answer alone is a change")
        let delivered = Self.snapshot(tracked: 3, delivered: 3, answered: 1, roundTrip: .milliseconds(80))
        #expect(changes.finish(delivered) == delivered, "the final snapshot, changed")
        #expect(changes.isFinished)
        #expect(changes.tick(Self.snapshot(tracked: 9)) == nil, "nothing after the final one")
        #expect(changes.finish(Self.snapshot(tracked: 9)) == nil, "finishing twice yields nothing")
    }

    @Test("the final snapshot is not yielded when nothing changed since the last one")
    func unchangedFinal() {
        var changes = SnapshotChanges()
        let one = Self.snapshot(tracked: 1)
        _ = changes.subscribed(one)
        #expect(changes.finish(one) == nil)
        #expect(changes.isFinished)
    }

    @Test("increments since nil are the counters themselves; since a snapshot, each counter's gain")
    func increments() {
        var counters = DeliveryCounters()
        counters.tracked = 120
        counters.recovered = 7
        counters.skippedBacklog = 2
        counters.invalid = 1
        counters.droppedByMiddleware = 16
        counters.droppedBeforeConfigure = 3
        counters.deletedByOptOut = 4
        counters.evictedByCaps = 5
        counters.rejectedByIngest = 6
        counters.droppedTooLarge = 8
        counters.setAside = 9
        counters.setAsideInTotal = 10
        counters.lostFromDisk = 11
        counters.delivered = 12
        counters.ignoredWhileDisabled = 13
        counters.damagedRecords = 14
        counters.pendingOnDisk = 500
        counters.pendingInMemory = 600
        let first = MetricSnapshot(counters: counters, requestsAnswered: 15, lastRoundTrip: .milliseconds(30))
        let fromStart = first.increments(since: nil)
        #expect(fromStart.tracked == 120 && fromStart.recovered == 7 && fromStart.skippedBacklog == 2 && fromStart.invalid == 1)
        #expect(fromStart.droppedByMiddleware == 16)
        #expect(fromStart.droppedBeforeConfigure == 3 && fromStart.deletedByOptOut == 4 && fromStart.evictedByCaps == 5)
        #expect(fromStart.rejectedByIngest == 6 && fromStart.droppedTooLarge == 8 && fromStart.lostFromDisk == 11)
        #expect(fromStart.setAside == 10, "the set-aside counter is the total ever set aside, not the gauge")
        #expect(fromStart.delivered == 12 && fromStart.ignoredWhileDisabled == 13 && fromStart.damagedRecords == 14)
        #expect(fromStart.requestsAnswered == 15)

        var later = counters
        later.tracked += 30
        later.delivered += 40
        later.setAside -= 9          // queued again after an hour: the gauge goes down…
        later.setAsideInTotal += 2   // …and another batch was set aside: the counter only adds
        later.pendingOnDisk -= 100
        let second = MetricSnapshot(counters: later, requestsAnswered: 17, lastRoundTrip: .milliseconds(45))
        var expected = MetricIncrements()
        expected.counters.tracked = 30
        expected.counters.delivered = 40
        expected.counters.setAside = 2
        expected.counters.setAsideInTotal = 2
        expected.requestsAnswered = 2
        #expect(second.increments(since: first) == expected, "the gauges are not in the increments; everything else gained nothing")
        #expect(second.increments(since: second) == MetricIncrements())
    }

    @Test("a snapshot older than the previous one (or another client's) gives no negative increment")
    func neverNegative() {
        let more = Self.snapshot(tracked: 10, delivered: 8, answered: 4)
        let less = Self.snapshot(tracked: 4, delivered: 9, answered: 1)
        let increments = less.increments(since: more)
        #expect(increments.tracked == 0 && increments.requestsAnswered == 0)
        #expect(increments.delivered == 1)
    }

    @Test("the gauges read the counters as they stand")
    func gauges() {
        var counters = DeliveryCounters()
        counters.pendingOnDisk = 7
        counters.pendingInMemory = 2
        counters.setAside = 50
        let snapshot = MetricSnapshot(counters: counters)
        #expect(snapshot.pendingOnDisk == 7 && snapshot.pendingInMemory == 2 && snapshot.setAside == 50)
        #expect(snapshot.description.contains("requests answered 0, last round trip none"))
    }
}
