import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherDefaults
import TetherTestHelperSupport
import TetherTesting

/// `reset()` on defaults keys: the key's line removed under the file's lock, every other byte
/// kept, and every holder back to the registration value or its default.
///
/// Holders are made before any `#expect` in a closure: Swift 6.3 gave a holder made after one
/// the `#expect`'s literal as its default.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(5))) struct DefaultsResetTests {
  static let original = """
    # my settings
    count = 5

    [ui]
    ; the look
    theme = dark
    size = 12

    [empty]
    gone = 1

    """

  /// Two holders and an Observation tracker show the default when `reset()` returns; only the
  /// key's line is gone, a section left empty stays.
  @Test func onlyTheKeysLineGoesAndEveryHolderShowsTheDefault() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data(Self.original.utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        let theme = Shared(wrappedValue: "light", .registered("ui.theme"))
        let same = Shared(
          wrappedValue: "other", .defaults("ui.theme", store: DefaultsStore(file: file)))
        let gone = Shared(wrappedValue: 0, .registered("empty.gone"))
        let observed = Atomic<Bool>(false)
        withObservationTracking {
          _ = same.wrappedValue
        } onChange: {
          observed.store(true, ordering: .relaxed)
        }
        #expect(theme.wrappedValue == "dark" && same.wrappedValue == "dark")
        try await theme.reset()
        #expect(theme.wrappedValue == "light" && same.wrappedValue == "light")
        let told = observed.load(ordering: .relaxed)
        #expect(told, "Observation was told before reset returned")
        #expect(contents(file) == Self.original.replacing("theme = dark\n", with: ""))
        try await gone.reset()
        #expect(gone.wrappedValue == 0)
        #expect(
          contents(file)
            == Self.original.replacing("theme = dark\n", with: "").replacing("gone = 1\n", with: "")
        )
        await #expect(throws: TetherError.self) {
          _ = try await Shared<String>(require: .registered("ui.theme"))
        }
      }
    }
  }

  /// With a registration file, holders show its value after the reset, not their default.
  @Test func theRegistrationValueShowsAfterAReset() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let registration = folder.appending(path: "registration.ini")
      try Data("count = 7\n".utf8).write(to: registration)
      try Data("count = 3\nother = 1\n".utf8).write(to: file)
      try await defaultsBootstrap(folder, registration: registration.path) {
        let count = Shared(wrappedValue: 0, .registered("count"))
        #expect(count.wrappedValue == 3)
        try await count.reset()
        #expect(count.wrappedValue == 7)
        #expect(contents(file) == "other = 1\n")
        try await count.reset()
        #expect(count.wrappedValue == 7)
        let required = try await Shared<Int>(require: .registered("count"))
        #expect(required.wrappedValue == 7)
      }
    }
  }

  /// A change of the key waiting in the throttle window is written first, never after the
  /// reset; a change of another key of the file waiting with it is written, not lost.
  @Test func aPendingThrottledWriteNeverLandsAfterTheReset() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("other = 1\n".utf8).write(to: file)
      try await defaultsBootstrap(folder, throttle: "1s") {
        let count = Shared(wrappedValue: 0, .registered("count"))
        let other = Shared(wrappedValue: 0, .registered("other"))
        count.withLock { $0 = 1 }  // written at once
        count.withLock { $0 = 2 }  // pending for a second
        other.withLock { $0 = 2 }  // pending with it
        try await count.reset()
        #expect(count.wrappedValue == 0)
        #expect(contents(file) == "other = 2\n")
        #expect(
          await staysTrue(for: .milliseconds(1500)) { contents(file) == "other = 2\n" },
          "written after the reset: \(contents(file))")
        await TetherSystem.flush()
        #expect(contents(file) == "other = 2\n")
        #expect(count.saveError == nil && other.saveError == nil)
      }
    }
  }

  /// A line of the key that does not parse goes too, and its load error with it.
  @Test func aBrokenLineOfTheKeyGoesWithItsError() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("count = lots\nother = 1\n".utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        let count = Shared(wrappedValue: 0, .registered("count"))
        #expect(count.loadError != nil)
        try await count.reset()
        #expect(count.loadError == nil && count.wrappedValue == 0)
        #expect(contents(file) == "other = 1\n")
      }
    }
  }

  /// No user file: the reset succeeds and makes nothing, not even the lock file.
  @Test func aResetWithNoFileSucceedsAndMakesNothing() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder) {
        let count = Shared(wrappedValue: 4, .registered("count"))
        try await count.reset()
        #expect(count.wrappedValue == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
      }
    }
  }

  /// The tool's reset (`resetStoredValue`) removes the line as a key's does; a name that would
  /// add a line is refused; no file is success, and makes nothing.
  @Test func theToolsResetRemovesTheLineAsAKeysDoes() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data(Self.original.utf8).write(to: file)
      let strategy = try DefaultsStrategy(options: StrategyOptions(["file": file.path]))
      try await strategy.resetStoredValue(of: "ui.theme", options: StrategyOptions())
      #expect(contents(file) == Self.original.replacing("theme = dark\n", with: ""))
      await #expect {
        try await strategy.resetStoredValue(of: "ui.x\n[ui]", options: StrategyOptions())
      } throws: { error in
        guard case .invalidKeyName = error as? TetherError else { return false }
        return true
      }
      let missing = try DefaultsStrategy(
        options: StrategyOptions(["file": folder.appending(path: "new/defaults.ini").path]))
      try await missing.resetStoredValue(of: "count", options: StrategyOptions())
      #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "new").path))
    }
  }

  /// A holder in another process is brought back to its default by this process's reset.
  @Test func aHolderInAnotherProcessSeesTheDefault() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let ready = folder.appending(path: "ready")
      try Data("count = 5\n".utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        let count = Shared(wrappedValue: 0, .registered("count"))
        // A minute for the child to start: an ASan-built child under `make asan` is slow.
        let child = Task {
          try await runHelper(
            .holdUntilReset(
              store: .defaults, file: file.path, key: "count", stored: 5, ready: ready.path))
        }
        await expectEventually(timeout: .seconds(60)) {
          FileManager.default.fileExists(atPath: ready.path)
        }
        try await count.reset()
        let result = try await child.value
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.report.seen == -1)
      }
    }
  }
}
