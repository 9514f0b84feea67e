import Foundation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// A change of a file key made while an edit of the file is being delivered was made before
/// its holders saw the edit, which wins: the change is dropped, never written over the edit
/// its holders show once the delivery ends.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct FileDeliveryConflictTests {
  /// The edit's delivery is held inside the value's decoding (``DeliveryGate``) for 300 ms, in
  /// which the change and its `save()` are made: the save throws the conflict, and the file and
  /// the holder both hold the edit's 17. A run slowed past those 300 ms makes them after the
  /// delivery, and the save writes 2. Either way a save that returns has written its change, and
  /// the holder and the file agree.
  @Test func aSaveDuringTheDeliveryOfAnEditThrowsAndWritesNothing() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "value.json")
      try Data("1".utf8).write(to: file)
      @Shared(.fileStorage(file)) var value = GatedNumber(rawValue: 0)
      #expect(value.rawValue == 1)
      let gate = DeliveryGate(at: 17)
      try Data("17".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "the edit's delivery is under way") {
        gate.isHolding
      }
      $value.withLock { $0 = GatedNumber(rawValue: 2) }
      do {
        try await $value.save()
        #expect(try stored(file) == 2, "a save that returned wrote its change")
      } catch let error as TetherError {
        #expect(error == .conflict(key: file.path, location: file.path))
        #expect(value.rawValue == 17, "the holder shows what the file holds when the save throws")
        #expect(try stored(file) == 17, "the edit is not written over")
      }
      await TetherSystem.flush()
      #expect(try stored(file) == value.rawValue, "the holder and the file agree")
    }
  }

  /// A change made while an edit is being delivered waits out the throttle, to be dropped when
  /// the writer takes it up; a change the holder makes once it shows the edit is one of its
  /// own, written, not one more value for the change made before the edit.
  @Test func aChangeMadeOnceTheEditIsShownDoesNotJoinOneMadeBefore() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "value.json")
      // The key's own throttle: a second.
      @Shared(.fileStorage(file)) var value = GatedNumber(rawValue: 0)
      $value.withLock { $0 = GatedNumber(rawValue: 1) }  // written at once
      let made = Mutex<Bool?>(nil)
      let holder = $value
      let gate = DeliveryGate(at: 27) { gate in
        holder.withLock { $0 = GatedNumber(rawValue: 3) }  // waits out the throttle
        let held = !gate.hasLetGo
        made.withLock { $0 = held }
      }
      try Data("27".utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30), "the delivery of 27 is held") {
        made.withLock { $0 } != nil
      }
      guard made.withLock({ $0 }) == true else {
        // Made after the hold (a loaded run): a change of its own, written.
        await expectEventually(timeout: .seconds(30), "the holder and the file agree") {
          (try? stored(file)) == value.rawValue
        }
        return withExtendedLifetime(gate) {}
      }
      await expectEventually(timeout: .seconds(30), "the edit reaches the holder") {
        value.rawValue == 27
      }
      $value.withLock { $0 = GatedNumber(rawValue: 4) }
      await expectEventually(timeout: .seconds(30), "the change after the edit is written") {
        (try? stored(file)) == 4
      }
      #expect(value.rawValue == 4)
      withExtendedLifetime(gate) {}
    }
  }

  private func stored(_ file: URL) throws -> Int? {
    Int(String(decoding: try Data(contentsOf: file), as: UTF8.self))
  }
}
