import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// Every holder learns what the file holds for its key, however this process came to read it:
/// what each key's holders were last told is the one thing a new read is compared with.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsDeliveryTests {
  /// Runs `body` with holders of keys `a` and `b` of a defaults file holding `1` for both.
  func withTwoKeys(
    _ body: (_ file: URL, _ a: Shared<Int>, _ b: Shared<Int>) async throws -> Void
  ) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("a = 1\nb = 1\n".utf8).write(to: file)
      let store = DefaultsStore(file: file)
      let a = Shared(wrappedValue: 0, .defaults("a", store: store))
      let b = Shared(wrappedValue: 0, .defaults("b", store: store))
      #expect(a.wrappedValue == 1 && b.wrappedValue == 1)
      try await body(file, a, b)
    }
  }

  /// Loading one key reads the whole file; another key's holders still get its edit.
  @Test func aLoadOfOneKeyDoesNotHideAnEditOfAnother() async throws {
    try await withTwoKeys { file, a, b in
      try Data("a = 2\nb = 2\n".utf8).write(to: file, options: .atomic)
      try await a.load()
      #expect(a.wrappedValue == 2)
      await expectEventually(timeout: .seconds(10), "b: \(b.wrappedValue)") { b.wrappedValue == 2 }
    }
  }

  /// This process's write keeps an editor's change of another key (a locked read-merge-replace),
  /// and the watcher takes the written file as this process's own: that key's holders are told
  /// by the write.
  @Test func aWriteThatKeepsAnEditOfAnotherKeyTellsThatKeysHolders() async throws {
    try await withTwoKeys { file, a, b in
      try Data("a = 1\nb = 5\n".utf8).write(to: file, options: .atomic)
      a.withLock { $0 = 2 }
      try await a.save()
      #expect(contents(file) == "a = 2\nb = 5\n")
      await expectEventually(timeout: .seconds(10), "b: \(b.wrappedValue)") { b.wrappedValue == 5 }
      #expect(a.wrappedValue == 2)
    }
  }

  /// A hand edit that does not parse gives the default and the error as one change: the key
  /// delivered them in two steps, and an Observation `onChange` of the value (on the delivering
  /// thread) found the default with no error.
  @Test func whoeverIsToldOfTheDefaultOfABadEditFindsTheLoadErrorWithIt() async throws {
    try await withTwoKeys { file, a, _ in
      let errorSet = Mutex<[Bool]>([])
      withObservationTracking {
        _ = a.wrappedValue
      } onChange: {
        errorSet.withLock { $0.append(a.loadError != nil) }
      }
      try edit(file, "a", "one")
      await expectEventually(timeout: .seconds(10)) { a.loadError != nil }
      #expect(a.wrappedValue == 0)
      #expect(errorSet.withLock { $0 } == [true], "onChange found the default without the error")
    }
  }

  /// A change of a key made while its holders are being told of an edit, before they have it,
  /// was made before they saw it: it is dropped as a conflict, not written. Here it is made
  /// from an Observation `onChange` of another key of the edit, on the delivering thread, while
  /// a change of the key waits for its trailing write: a newer change would update that one in
  /// place, were it not checked that no delivery of the key began since. The two keys are told
  /// in either order: when `k`'s holder already has the edit (its value back to the file's
  /// 10), the change is made having seen it, and is written.
  @Test func aChangeMadeWhileItsHoldersAreToldOfAnEditIsNotWritten() async throws {
    try await withTemporaryDirectory { folder in
      let registration = folder.appending(path: "registered.ini")
      try Data("j = 1\nk = 1\n".utf8).write(to: registration)
      try await defaultsBootstrap(folder, throttle: "60s", registration: registration.path) {
        let file = folder.appending(path: "defaults.ini")
        @Shared(.registered("j")) var j = 0
        @Shared(.registered("k")) var k = 0
        #expect(j == 1 && k == 1)
        $k.withLock { $0 = 10 }  // The leading write, at once.
        await expectEventually(timeout: .seconds(30)) { contents(file) == "k = 10\n" }
        $k.withLock { $0 = 11 }  // Waits for the trailing write, a minute away.
        let kHadTheEdit = Mutex<Bool?>(nil)
        withObservationTracking {
          _ = j
        } onChange: { [k = $k] in
          kHadTheEdit.withLock { $0 = k.wrappedValue == 10 }
          k.withLock { $0 = 99 }
        }
        try Data("j = 2\nk = 2\n".utf8).write(to: registration, options: .atomic)
        await expectEventually(timeout: .seconds(30)) { j == 2 }
        if kHadTheEdit.withLock({ $0 }) == true {
          #expect($k.saveError == nil)
          await TetherSystem.flush()
          #expect(contents(file) == "k = 99\n")
        } else {
          await expectEventually(timeout: .seconds(10), "the dropped change is said") {
            $k.saveError != nil
          }
          await TetherSystem.flush()
          #expect(contents(file) == "k = 11\n")
        }
      }
    }
  }

  /// Holders of one name as two types share its waiting change, each change taking the place
  /// of the last: every change is encoded as its own holders' type, whichever type the change
  /// it replaces had.
  @Test func holdersOfOneNameAsTwoTypesEachWriteTheirOwnValue() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder, throttle: "60s") {
        let file = folder.appending(path: "defaults.ini")
        let store = DefaultsStore(file: file)
        @Shared(.defaults("n", store: store)) var number = 0
        @Shared(.defaults("n", store: store)) var text = ""
        $number.withLock { $0 = 1 }  // The leading write, at once.
        await expectEventually(timeout: .seconds(30)) { contents(file) == "n = 1\n" }
        $number.withLock { $0 = 2 }  // Waits for the trailing write, a minute away.
        $text.withLock { $0 = "two words" }
        await TetherSystem.flush()
        #expect(contents(file) == "n = two words\n", "\(String(describing: $text.saveError))")
        $text.withLock { $0 = "three" }
        $number.withLock { $0 = 4 }
        await TetherSystem.flush()
        #expect(contents(file) == "n = 4\n")
      }
    }
  }
}
