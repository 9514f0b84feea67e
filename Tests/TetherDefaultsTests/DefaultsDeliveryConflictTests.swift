import Foundation
import Synchronization
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// A change of a key made while an edit of its line is being delivered loses to the edit, and
/// says so only once its holders show the edit's value: a `save()` that throws the conflict
/// never returns while the holder still shows the value the file did not take.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsDeliveryConflictTests {
  /// The edit's delivery is held inside the key's decoding (``Gated``) until the change and its
  /// `save()` have been made; the save's conflict arrives after the holder has the edit's 7.
  @Test func aSaveDuringTheDeliveryOfAnEditThrowsOnceTheHolderHasTheEdit() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("d = 1\n".utf8).write(to: file)
      let gate = Gated.gate
      do {
        @Shared(.defaults("d", store: DefaultsStore(file: file))) var d = Gated(rawValue: 0)!
        #expect(d.rawValue == 1)
        gate.arm(at: 7)
        try edit(file, "d", "7")
        await expectEventually(timeout: .seconds(30), "the edit's delivery is under way") {
          gate.isHolding
        }
        // Let the delivery go once this test has been waiting for the save a while.
        Task.detached {
          try await Task.sleep(for: .milliseconds(300))
          gate.open()
        }
        $d.withLock { $0 = Gated(rawValue: 2)! }
        do {
          try await $d.save()
          Issue.record("a save made during the delivery of an edit of its key returned")
        } catch let error as TetherError {
          #expect(error == .conflict(key: "d", location: file.path))
          #expect(d.rawValue == 7, "the holder shows what the file holds when the save throws")
          #expect(gate.wasOpened, "the conflict waited for the delivery")
        }
        #expect(contents(file) == "d = 7\n")
        await expectEventually(timeout: .seconds(10)) {
          $d.saveError as? TetherError == .conflict(key: "d", location: file.path)
        }
        #expect(d.rawValue == 7)
      }
    }
  }
}

/// An integer whose decoding from the file holds the thread that decodes a chosen value until
/// the test lets it go: the window between a delivery's start and its value's arrival, which
/// is a few microseconds in a normal run, held open.
struct Gated: RawRepresentable, Equatable, Sendable {
  let rawValue: Int

  init?(rawValue: Int) {
    Self.gate.hold(at: rawValue)
    self.rawValue = rawValue
  }

  /// The gate: one for the process, as the thread that decodes a delivery is the watcher's,
  /// outside any test's task; only the one test above uses this type.
  static let gate = Gate()

  final class Gate: Sendable {
    private struct State {
      var armedAt: Int?
      var holding = false
      var opened = false
    }
    private let state = Mutex(State())
    private let released = DispatchSemaphore(value: 0)

    func arm(at value: Int) { state.withLock { $0.armedAt = value } }

    var isHolding: Bool { state.withLock { $0.holding } }
    var wasOpened: Bool { state.withLock { $0.opened } }

    func open() {
      state.withLock { $0.opened = true }
      released.signal()
    }

    /// Holds the calling thread when `value` is the armed one, once, for at most 30 s.
    fileprivate func hold(at value: Int) {
      let holds = state.withLock { state in
        guard state.armedAt == value else { return false }
        state.armedAt = nil
        state.holding = true
        return true
      }
      guard holds else { return }
      _ = released.wait(timeout: .now() + 30)
    }
  }
}
