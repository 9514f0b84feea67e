import Dispatch
import Synchronization
import Testing
import Tether
import TetherTesting

/// `updatePending(for:_:)`, which a burst of one holder's `withLock` changes goes through: a
/// change is made in place only where submitting it would merge it into the pending change and
/// a write of that change is due; otherwise nothing changes, and the caller submits.
@Suite struct ThrottledWriterUpdateTests {
  final class Target: Sendable {}

  @Test func aChangeWaitingForItsTrailingWriteIsUpdatedInPlaceByItsGroupOnly() {
    let log = WriterLog()
    let writer = log.writer()
    let (holder, other) = (Target(), Target())
    let update = { (value: Int, group: Target) in
      writer.updatePending(for: log.waiter("update", group: group)) {
        $0 = value
        return true
      }
    }
    #expect(!update(-1, holder), "nothing pending")
    writer.submit(0, immediately: false, waiter: log.waiter("leading", group: holder))
    #expect(!update(-1, holder), "the leading write took the change: nothing pending")
    writer.flushNow()  // The leading write, finished: the window is open.
    writer.submit(1, immediately: false, waiter: log.waiter("trailing", group: holder))
    #expect(update(2, holder))
    #expect(!update(-1, other), "another group's waiter would not stand for this one")
    #expect(!writer.updatePending(for: log.waiter("update")) { _ in true }, "no group")
    #expect(!writer.updatePending(for: log.waiter("update", group: holder)) { _ in false })
    writer.flushNow()
    #expect(log.written == [0, 2])
    #expect(log.told == ["leading", "trailing"], "the waiter in place was told for the update")
    #expect(log.superseded.isEmpty)
  }

  /// A change made while a write runs waits with no write due: the write's end schedules it,
  /// or, when the write failed, the next change submitted. Updating it in place then would
  /// leave it unwritten until a flush.
  @Test func aChangeWaitingWithNoWriteDueIsNotUpdatedInPlace() async {
    // Waited for by polling, not by blocking: the test runs on the cooperative pool.
    let started = Atomic(false)
    let release = DispatchSemaphore(value: 0)
    let written = Mutex<[Int]>([])
    let writer = ThrottledWriter<Int>(
      module: "tether.test", subject: "test.update", throttle: .milliseconds(10), merge: nil,
      perform: { change in
        if change == 0 {
          started.store(true, ordering: .releasing)
          release.wait()
          return .failed(TestFailure())
        }
        written.withLock { $0.append(change) }
        return .written
      },
      recovered: {})
    let log = WriterLog()
    let holder = Target()
    let update = { (value: Int) in
      writer.updatePending(for: log.waiter("update", group: holder)) {
        $0 = value
        return true
      }
    }
    writer.submit(0, immediately: false, waiter: log.waiter("leading", group: holder))
    await expectEventually(timeout: .seconds(30)) { started.load(ordering: .acquiring) }
    writer.submit(1, immediately: false, waiter: log.waiter("during", group: holder))
    #expect(!update(-1), "a write runs: none is due for this change")
    release.signal()
    await expectEventually(timeout: .seconds(30)) { log.told == ["leading"] }
    #expect(!update(-1), "kept after the failed write, for the next change")
    writer.submit(2, immediately: false, waiter: log.waiter("next", group: holder))
    await expectEventually(timeout: .seconds(30), "written: \(written.withLock { $0 })") {
      written.withLock { $0 } == [2]
    }
  }

  struct TestFailure: Error {}
}
