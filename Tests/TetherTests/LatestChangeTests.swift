import Dispatch
import Synchronization
import Testing
import Tether

/// `LatestChange`, which a burst of `withLock` changes goes through: a newer value takes the
/// waiting change's place only while that change is open (the writer has not taken it) and its
/// serial is still the holders'.
@Suite struct LatestChangeTests {
  @Test func aValueTakesTheWaitingChangesPlaceOnlyWhileItIsOpenAndTheHolders() throws {
    let serial = ChangeSerial()
    let latest = LatestChange<Int, String>(key: "k", serial: serial) { "\($0)" }
    #expect(!latest.update(1), "never opened: no change waits")
    serial.serial = 7
    let change = latest.open(1, serial: 7)
    #expect(latest.update(2))
    #expect(latest.update(3))
    serial.serial = 8  // Someone else's change of the key, numbered later.
    #expect(!latest.update(-1), "no longer the holders' latest change")
    serial.serial = 7
    let taken = change.take()
    #expect(!latest.update(-1), "the writer has taken the change")
    serial.serial = 9
    let next = latest.open(4, serial: 9)
    #expect(latest.update(5))
    #expect(try taken() == "3", "a taken change keeps its value when the object opens again")
    #expect(try taken() == "3", "and gives it again to a write that failed")
    serial.serial = nil
    #expect(!latest.update(-1), "an edit dropped the change")
    #expect(try next.take()() == "5")
  }

  /// The value is read and written under the object's lock: a writer taking it while a thread
  /// updates it gets one of the thread's values, and every update after that is refused.
  @Test func updatesRacingTheTakeAreEitherTakenOrRefused() throws {
    for _ in 0..<200 {
      let serial = ChangeSerial()
      serial.serial = 0
      let latest = LatestChange<[Int], [Int]>(key: "k", serial: serial) { $0 }
      let change = latest.open([0], serial: 0)
      let firstRefused = Mutex<Int?>(nil)
      let taken = Mutex<Result<[Int], any Error>?>(nil)
      DispatchQueue.concurrentPerform(iterations: 2) { thread in
        if thread == 0 {
          for value in 1...500 where !latest.update([value]) {
            firstRefused.withLock { $0 = $0 ?? value }
          }
        } else {
          let encode = change.take()
          taken.withLock { $0 = Result { try encode() } }
        }
      }
      let value = try #require(try taken.withLock { $0 }?.get().first)
      // Every value up to the one taken was taken in turn; every one after it was refused.
      #expect(firstRefused.withLock { $0 } == (value == 500 ? nil : value + 1))
    }
  }
}
