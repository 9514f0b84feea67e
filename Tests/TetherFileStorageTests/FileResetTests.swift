import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

/// `reset()` on file keys: the file removed under its lock, every holder back to its default,
/// and nothing a user wrote destroyed unseen.
@Suite(.tetherBootstrap(), .timeLimit(.minutes(5))) struct FileResetTests {
  /// Two holders and an Observation tracker: all show the default when `reset()` returns, and
  /// the file is gone.
  @Test func everyHolderShowsTheDefaultWhenResetReturns() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data("5".utf8).write(to: file)
      let first = Shared(wrappedValue: 0, .fileStorage(file))
      let second = Shared(wrappedValue: 1, .fileStorage(file))
      #expect(first.wrappedValue == 5 && second.wrappedValue == 5)
      let observed = Atomic<Bool>(false)
      withObservationTracking {
        _ = second.wrappedValue
      } onChange: {
        observed.store(true, ordering: .relaxed)
      }
      try await first.reset()
      #expect(first.wrappedValue == 0, "the first holder's default")
      #expect(second.wrappedValue == 0, "the first holder's default, shared")
      let told = observed.load(ordering: .relaxed)
      #expect(told, "Observation was told before reset returned")
      #expect(!FileManager.default.fileExists(atPath: file.path), "the file is deleted")
      await #expect(throws: TetherError.self) {
        _ = try await Shared<Int>(require: .fileStorage(file))
      }
    }
  }

  /// The watcher's event for the removal is this process's own: it is not delivered, so a
  /// change made right after the reset is not dropped as a conflict with it.
  @Test func aChangeRightAfterAResetIsNotTakenForAnEditThatWins() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data("5".utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      try await value.reset()
      value.withLock { $0 = 7 }  // written at once, or pending: either way it must stay
      value.withLock { $0 = 8 }  // pending in the throttle window
      #expect(
        await staysTrue(for: .milliseconds(500)) {
          value.wrappedValue == 8 && value.saveError == nil && value.loadError == nil
        }, "value \(value.wrappedValue), saveError \(String(describing: value.saveError))")
      await TetherSystem.flush()
      #expect(text(file) == "8")
    }
  }

  /// The value written before a reset, set and saved again after it, is written again: the
  /// reset removed it (a save never finds a value written by a write the reset undid).
  @Test func theValueWrittenBeforeAResetIsWrittenAgainAfterIt() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      value.withLock { $0 = 5 }
      try await value.save()
      try await value.reset()
      #expect(text(file) == nil)
      value.withLock { $0 = 5 }
      try await value.save()
      #expect(text(file) == "5")
    }
  }

  /// A change waiting in the throttle window when the reset starts is written first, never
  /// after: once the window has passed, and after a flush, the file is still gone.
  @Test func aPendingThrottledWriteNeverLandsAfterTheReset() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      let value = Shared(wrappedValue: 0, .fileStorage(file))  // throttle 1s
      value.withLock { $0 = 1 }  // written at once
      value.withLock { $0 = 2 }  // pending for a second
      try await value.reset()
      #expect(value.wrappedValue == 0)
      #expect(
        await staysTrue(for: .milliseconds(1500)) {
          !FileManager.default.fileExists(atPath: file.path)
        }, "written after the reset: \(text(file) ?? "")")
      await TetherSystem.flush()
      #expect(!FileManager.default.fileExists(atPath: file.path))
      #expect(value.wrappedValue == 0 && value.saveError == nil)
    }
  }

  /// Bytes that do not decode are kept beside the file as `NAME.corrupt-<UTC time>`, as a write
  /// over them keeps them, and the holder's load error goes with the file. Also by a key no
  /// holder has read the bytes through.
  @Test(arguments: [true, false]) func aCorruptFileIsKeptBesideIt(held: Bool) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data("{oops".utf8).write(to: file)
      if held {
        let value = Shared(wrappedValue: 0, .fileStorage(file))
        #expect(value.loadError != nil)
        try await value.reset()
        #expect(value.wrappedValue == 0)
        #expect(value.loadError == nil, "the load error went with the file")
      } else {
        let key: FileStorageKey<Int> = .fileStorage(file)
        try key.reset { #expect($0 == nil) }
      }
      #expect(!FileManager.default.fileExists(atPath: file.path))
      let backups = try names(in: folder).filter { $0.hasPrefix("v.json.corrupt-") }
      #expect(backups.count == 1, "\(backups)")
      #expect(
        backups.first?.wholeMatch(of: /v\.json\.corrupt-\d{8}T\d{6}Z/) != nil, "\(backups)")
      #expect(backups.first.flatMap { text(folder.appending(path: $0)) } == "{oops")
    }
  }

  /// A value that decodes, or an empty file (no value), is removed with no backup.
  @Test(arguments: ["5", ""]) func aFileThatDecodesIsRemovedWithNoBackup(
    content: String
  )
    async throws
  {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      try Data(content.utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      try await value.reset()
      #expect(try names(in: folder).filter { !$0.hasPrefix(".") } == [])
    }
  }

  /// Nothing stored: the reset succeeds, and makes nothing — no file, no lock file, no folder.
  @Test func aResetOfNothingStoredSucceedsAndMakesNothing() async throws {
    try await withTemporaryDirectory { folder in
      // Both made before any #expect: Swift 6.3 gave a holder made after an #expect in a closure
      // the #expect's literal as its default.
      let inMissingFolder = Shared(
        wrappedValue: 3, .fileStorage(folder.appending(path: "a/v.json")))
      let inFolder = Shared(wrappedValue: 4, .fileStorage(folder.appending(path: "w.json")))
      try await inMissingFolder.reset()
      try await inFolder.reset()
      try await inFolder.reset()
      #expect(inMissingFolder.wrappedValue == 3 && inFolder.wrappedValue == 4)
      #expect(try names(in: folder) == [])
    }
  }

  /// A folder or a FIFO where the file should be: an error naming the path, and it stays.
  @Test(arguments: ["folder", "FIFO"]) func somethingElseInPlaceOfTheFileIsAnErrorNamingIt(
    kind: String
  ) async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "v.json")
      if kind == "folder" {
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
      } else {
        try makeFIFO(at: file)
      }
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      await #expect {
        try await value.reset()
      } throws: { error in
        guard case .unusableFile(let path, let reason) = error as? TetherError else { return false }
        return path == file.path && reason.contains("not a regular file")
      }
      var info = stat()
      #expect(lstat(file.path, &info) == 0, "it stays")
      #expect(info.st_mode & S_IFMT == (kind == "folder" ? S_IFDIR : S_IFIFO))
      await releasingFIFOs(in: folder) { await TetherSystem.flush() }
    }
  }

  /// A registered key mapped to `file` resets its file through the strategy's key.
  @Test func aRegisteredKeyResetsItsFile() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder) {
        let file = folder.appending(path: "count.json")
        @Shared(.registered("count")) var count = 0
        $count.withLock { $0 = 4 }
        try await $count.save()
        #expect(text(file) == "4")
        @Shared(.fileStorage(file)) var direct = 1
        try await $count.reset()
        #expect(count == 0 && direct == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
      }
    }
  }

  /// The tool's reset (`resetStoredValue`) is a key's: a file that is not JSON is kept beside
  /// it, a missing file is success, and a name that would leave the folder is refused.
  @Test func theToolsResetRemovesTheFileAsAKeysDoes() async throws {
    try await withTemporaryDirectory { folder in
      let strategy = try FileStorageStrategy(
        options: StrategyOptions(["directory": folder.path]))
      let file = folder.appending(path: "count.json")
      try Data("{oops".utf8).write(to: file)
      try await strategy.resetStoredValue(of: "count", options: StrategyOptions())
      #expect(!FileManager.default.fileExists(atPath: file.path))
      #expect(try names(in: folder).filter { $0.hasPrefix("count.json.corrupt-") }.count == 1)
      try await strategy.resetStoredValue(of: "count", options: StrategyOptions())
      await #expect {
        try await strategy.resetStoredValue(of: "../count", options: StrategyOptions())
      } throws: { error in
        guard case .invalidKeyName = error as? TetherError else { return false }
        return true
      }
    }
  }

  /// A holder in another process is brought back to its default by this process's reset.
  @Test func aHolderInAnotherProcessSeesTheDefault() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "shared.json")
      let ready = folder.appending(path: "ready")
      try Data("5".utf8).write(to: file)
      let value = Shared(wrappedValue: 0, .fileStorage(file))
      // A minute for the child to start: an ASan-built child under `make asan` is slow.
      let child = Task {
        try await runHelper(
          .holdUntilReset(
            store: .file, file: file.path, key: "shared", stored: 5, ready: ready.path))
      }
      await expectEventually(timeout: .seconds(60)) {
        FileManager.default.fileExists(atPath: ready.path)
      }
      try await value.reset()
      let result = try await child.value
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.seen == -1)
    }
  }
}

/// The names in `folder`, sorted.
private func names(in folder: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}
