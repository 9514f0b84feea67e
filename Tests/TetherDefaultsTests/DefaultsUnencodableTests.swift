import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// A value given through `withLock` is encoded when it is written: one that has no literal (a
/// date outside the years 0000-9999) is a save error naming the key and the file, reaches the
/// holders, and costs nothing else — not the file's line, not another key's change, not a
/// later change of the same key.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsUnencodableTests {
  static let original = "# mine\nwhen = 2026-11-21T09:30:00Z\n"
  static let unwritable = Date(timeIntervalSince1970: 1e12)

  @Test func aValueWithNoLiteralSetByWithLockIsASaveErrorNamingTheKey() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data(Self.original.utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        @Shared(.registered("when")) var when = Date.distantPast
        $when.withLock { $0 = Self.unwritable }
        await expectEventually { $when.saveError != nil }
        let text =
          ($when.saveError as? TetherError)?.description ?? "\(String(describing: $when.saveError))"
        #expect(text.hasPrefix("\(file.path): key \"when\": "), "\(text)")
        #expect(text.contains("outside 0000-9999"), "\(text)")
        await TetherSystem.flush()
        #expect(contents(file) == Self.original)
        #expect(when == Self.unwritable, "the holder keeps the value it was given")
      }
    }
  }

  /// In one write with another key's change: that change is written, this key's line kept.
  @Test func aValueWithNoLiteralCostsOnlyItsOwnKey() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data(Self.original.utf8).write(to: file)
      try await defaultsBootstrap(folder, throttle: "30s") {
        @Shared(.registered("when")) var when = Date.distantPast
        @Shared(.registered("count")) var count = 0
        $count.withLock { $0 = 1 }  // The window's leading write.
        await expectEventually { contents(file).contains("count = 1") }
        $when.withLock { $0 = Self.unwritable }
        $count.withLock { $0 = 2 }  // Pending together for the window.
        await TetherSystem.flush()
        #expect(contents(file) == Self.original + "count = 2\n")
        await expectEventually { $when.saveError != nil }
        #expect("\(String(describing: $when.saveError))".contains("outside 0000-9999"))
        #expect($count.saveError == nil)
      }
    }
  }

  /// A change made while the refused one is being written has the refused one's base, the
  /// file's line: it is written, not dropped as a conflict, and clears the error.
  @Test func aChangeMadeAfterAValueWithNoLiteralIsWritten() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data(Self.original.utf8).write(to: file)
      try await defaultsBootstrap(folder, throttle: "100ms") {
        @Shared(.registered("when")) var when = Date.distantPast
        $when.withLock { $0 = Self.unwritable }  // The window's leading write.
        $when.withLock { $0 = Date(timeIntervalSince1970: 0) }
        await expectEventually { contents(file).contains("when = 1970-01-01T00:00:00Z") }
        await expectEventually { $when.saveError == nil }
        #expect(contents(file).hasPrefix("# mine\n"))
      }
    }
  }
}
