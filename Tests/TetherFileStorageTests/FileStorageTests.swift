import Foundation
import Testing
import Tether
@_spi(Benchmarking) import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct FileStorageTests {
  @Test func conformance() async throws {
    try await withTemporaryDirectory { folder in
      try await StrategyConformance.run(
        FileStorageStrategy.self, options: "directory = \(folder.path)\nthrottle = 100ms",
        externalEdit: { name, value in
          try Data("\(value)".utf8).write(
            to: folder.appending(path: "\(name).json"), options: .atomic)
        })
    }
  }

  /// Its last holder gone with a change waiting out the throttle window, a file's change is
  /// written soon, and a flush meanwhile writes it.
  @Test func aReleasedKeysPendingChangeIsWrittenByAFlush() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "count.json")
      do {
        @Shared(.fileStorage(url)) var count = 0
        $count.withLock { $0 = 1 }
        $count.withLock { $0 = 2 }
      }
      await TetherSystem.flush()
      #expect(text(url) == "2")
    }
  }

  @Test func firstUseCreatesNoFileAndTheFirstChangeWritesAtOnce() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "count.json")
      @Shared(.fileStorage(url)) var count = 0
      #expect(!FileManager.default.fileExists(atPath: url.path), "no empty file is created")
      $count.withLock { $0 = 1 }
      await expectEventually(timeout: .seconds(30)) { text(url) == "1" }
      let newMode = try mode(url)
      #expect(newMode == 0o600, "a new file is private to its user")
    }
  }

  @Test func theDefaultCodersWriteWhatJSONEncoderWrites() async throws {
    struct Point: Codable, Equatable { var y = 2, x = 1, path = "a/b" }
    try await withTemporaryDirectory { folder in
      let listURL = folder.appending(path: "list.json")
      @Shared(.fileStorage(listURL)) var list = ["a/b"]
      $list.withLock { $0.append("c") }
      let expected = String(decoding: try JSONEncoder().encode(["a/b", "c"]), as: UTF8.self)
      await expectEventually(timeout: .seconds(30)) { text(listURL) == expected }
      let url = folder.appending(path: "point.json")
      @Shared(.fileStorage(url)) var point = Point()
      $point.withLock { $0.x = 3 }
      await expectEventually(timeout: .seconds(30)) { text(url)?.isEmpty == false }
      #expect(try JSONDecoder().decode(Point.self, from: Data(contentsOf: url)) == point)
      // The shared coders and a key's own coders are one key and one reference.
      @Shared(.fileStorage(url, decoder: JSONDecoder())) var same = Point()
      #expect(same == point)
      $same.withLock { $0.y = 9 }
      #expect(point == same)
    }
  }

  @Test func anExistingFileWinsOverTheDefaultAndIsNotRewritten() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "count.json")
      try Data(" 7 ".utf8).write(to: url)
      @Shared(.fileStorage(url)) var count = 0
      #expect(count == 7)
      #expect(text(url) == " 7 ")
    }
  }

  @Test func tenThousandMutationsInOneWindowAreTwoWrites() async throws {
    try await withTemporaryDirectory { folder in
      // A window longer than any test run, ended by flush: the count cannot depend on load.
      try await fileBootstrap(folder, throttle: "1m") {
        let key = try registeredFileKey("count")
        let count = Shared(wrappedValue: 0, key)
        for _ in 0..<10_000 { count.withLock { $0 += 1 } }
        await expectEventually(timeout: .seconds(30)) { key.writes == 1 }
        #expect(text(folder.appending(path: "count.json")) == "1", "the leading write")
        await TetherSystem.flush()
        #expect(key.writes == 2)
        #expect(text(folder.appending(path: "count.json")) == "10000", "the trailing write")
      }
    }
  }

  @Test func theTrailingWriteEndsTheWindowAndTheNextChangeIsWrittenAtOnce() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "200ms") {
        let key = try registeredFileKey("n")
        let n = Shared(wrappedValue: 0, key)
        n.withLock { $0 = 1 }
        n.withLock { $0 = 2 }
        await expectEventually(timeout: .seconds(30)) { key.writes == 2 }
        #expect(text(folder.appending(path: "n.json")) == "2", "written by the window's timer")
        n.withLock { $0 = 3 }
        await expectEventually(timeout: .seconds(30)) {
          text(folder.appending(path: "n.json")) == "3"
        }
        // Counted once the write has returned, a moment after its bytes are in place.
        await expectEventually { key.writes == 3 }
      }
    }
  }

  @Test func saveWritesNowAndReplacesThePendingTrailingWrite() async throws {
    try await withTemporaryDirectory { folder in
      // A window far longer than the test, so only save() can write the second value.
      try await fileBootstrap(folder, throttle: "1m") {
        let key = try registeredFileKey("v")
        let value = Shared(wrappedValue: 0, key)
        value.withLock { $0 = 1 }
        await expectEventually(timeout: .seconds(30)) { key.writes == 1 }
        value.withLock { $0 = 2 }
        try await value.save()
        #expect(text(folder.appending(path: "v.json")) == "2")
        #expect(key.writes == 2)
        // The save took the place of the change waiting for the trailing write: the next
        // change is one of its own, not an update of that one.
        value.withLock { $0 = 3 }
        await TetherSystem.flush()
        #expect(text(folder.appending(path: "v.json")) == "3")
      }
    }
  }

  @Test func twoSpellingsOfOnePathAndASymlinkAreOneReference() async throws {
    try await withTemporaryDirectory { folder in
      let real = folder.appending(path: "a/b.json")
      try FileManager.default.createDirectory(
        at: folder.appending(path: "a"), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: folder.appending(path: "link.json").path, withDestinationPath: real.path)
      @Shared(.fileStorage(URL(filePath: folder.path + "/a//b.json"))) var a = 0
      @Shared(.fileStorage(URL(filePath: folder.path + "/a/./b.json"))) var b = 0
      @Shared(.fileStorage(folder.appending(path: "link.json"))) var link = 0
      $a.withLock { $0 = 5 }
      #expect(b == 5 && link == 5)
      try await $link.save()
      let destination = try FileManager.default.destinationOfSymbolicLink(
        atPath: folder.appending(path: "link.json").path)
      #expect(destination == real.path, "the link still points at its target")
      #expect(text(real) == "5")
    }
  }

  /// A file's store goes with its last key, and its slot with it: a process that opens ever
  /// new files keeps nothing of the closed ones; one still held keeps its store.
  @Test func aStoreGoesWithItsLastKey() async throws {
    try await withTemporaryDirectory { folder in
      let kept = Shared(wrappedValue: 0, .fileStorage(folder.appending(path: "kept.json")))
      do {
        let keys = (0..<200).map {
          Shared(wrappedValue: $0, .fileStorage(folder.appending(path: "k\($0).json")))
        }
        let sameFileOtherType = Shared(
          wrappedValue: "", .fileStorage(folder.appending(path: "kept.json")))
        #expect(FileStorageProbe.openStores == 202)
        withExtendedLifetime((keys, sameFileOtherType)) {}
      }
      await expectEventually(timeout: .seconds(30)) { FileStorageProbe.openStores == 1 }
      kept.withLock { $0 = 1 }
      #expect(FileStorageProbe.openStores == 1)
    }
  }

  /// A key whose folder is reached through a link watches the folder it resolves to: an edit
  /// of the real file reaches its holder.
  @Test func anEditReachesAKeyWhoseFolderIsALink() async throws {
    try await withTemporaryDirectory { folder in
      let real = folder.appending(path: "real")
      try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(
        atPath: folder.appending(path: "link").path, withDestinationPath: real.path)
      @Shared(.fileStorage(folder.appending(path: "link/n.json"))) var n = 0
      // Two edits: the first can be caught by the check a new watch makes once it settles; the
      // second only by the folder's events.
      for value in [7, 8] {
        try Data("\(value)".utf8).write(to: real.appending(path: "n.json"))
        await expectEventually(timeout: .seconds(30)) { n == value }
      }
    }
  }

  @Test func anExistingFilesModeSurvivesASave() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "shared.json")
      try Data("1".utf8).write(to: url)
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
      @Shared(.fileStorage(url)) var value = 0
      $value.withLock { $0 = 2 }
      try await $value.save()
      let keptMode = try mode(url)
      #expect(keptMode == 0o640)
    }
  }

  @Test func aCorruptFileGivesTheDefaultAndIsKeptBeforeAWriteReplacesIt() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "facts.json")
      let original = Data("[\"unterminated".utf8)
      try original.write(to: url)
      @Shared(.fileStorage(url)) var facts: [String] = ["default"]
      #expect(facts == ["default"])
      #expect($facts.loadError is DecodingError)
      let untouched = try Data(contentsOf: url)
      #expect(untouched == original, "the file is left alone")
      $facts.withLock { $0.append("new") }
      try await $facts.save()
      let backups = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.hasPrefix("facts.json.corrupt-") }
      #expect(backups.count == 1)
      let backup = try #require(backups.first)
      #expect(backup.wholeMatch(of: /facts\.json\.corrupt-\d{8}T\d{6}Z/) != nil)
      let kept = try Data(contentsOf: folder.appending(path: backup))
      #expect(kept == original)
      #expect(text(url)?.contains("new") == true)
      #expect($facts.loadError == nil)
    }
  }

  @Test func aFileCorruptedLaterAlsoGivesTheDefaultUntilItIsFixed() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "facts.json")
      try Data(#"["mine"]"#.utf8).write(to: url)
      @Shared(.fileStorage(url)) var facts: [String] = ["default"]
      #expect(facts == ["mine"])
      try Data(#"["mine""#.utf8).write(to: url, options: .atomic)
      await expectEventually(timeout: .seconds(30)) { $facts.loadError != nil }
      #expect(facts == ["default"])
      #expect($facts.loadError is DecodingError)
      try Data(#"["mine", "fixed"]"#.utf8).write(to: url, options: .atomic)
      await expectEventually(timeout: .seconds(30)) { facts == ["mine", "fixed"] }
      #expect($facts.loadError == nil)
    }
  }

  @Test func anEmptyFileMeansNoValueAndNoError() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "empty.json")
      try Data().write(to: url)
      @Shared(.fileStorage(url)) var value = 3
      #expect(value == 3)
      #expect($value.loadError == nil)
    }
  }

  @Test func anExternalEditWinsOverAPendingLocalChange() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "10s") {
        @Shared(.registered("v")) var value = 0
        let url = folder.appending(path: "v.json")
        $value.withLock { $0 = 1 }
        await expectEventually(timeout: .seconds(30)) { text(url) == "1" }
        $value.withLock { $0 = 2 }  // pending for 10 s
        try Data("42".utf8).write(to: url, options: .atomic)
        await expectEventually(timeout: .seconds(30)) { value == 42 }
        await TetherSystem.flush()
        #expect(text(url) == "42", "the dropped local change is not written later")
        $value.withLock { $0 = 43 }
        await TetherSystem.flush()
        #expect(text(url) == "43", "the next change is one of its own, not the dropped one's")
      }
    }
  }

  @Test func aBootstrapsPendingWriteIsOnDiskWhenItEndsAndOnlyItsOwnFlushWritesItBefore()
    async throws
  {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "n.json")
      try await fileBootstrap(folder, throttle: "1m") {
        @Shared(.registered("n")) var n = 0
        $n.withLock { $0 = 1 }
        await expectEventually(timeout: .seconds(30)) { text(url) == "1" }
        $n.withLock { $0 = 2 }  // the trailing write, a minute away
        try await TetherSystem.withBootstrap(configuration: .string(""), strategies: []) {
          await TetherSystem.flush()
        }
        await TetherScope.$override.withValue(nil) { await TetherSystem.flush() }
        #expect(text(url) == "1", "another bootstrap's flush and the process's leave it pending")
      }
      #expect(text(url) == "2", "flushed as its bootstrap ended")
    }
  }

  @Test func aDeletedFileReturnsToTheDefaultAndIsNotRecreated() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "v.json")
      try Data("9".utf8).write(to: url)
      @Shared(.fileStorage(url)) var value = 1
      #expect(value == 9)
      try FileManager.default.removeItem(at: url)
      await expectEventually(timeout: .seconds(30)) { value == 1 }
      #expect(!FileManager.default.fileExists(atPath: url.path))
    }
  }

  @Test func changesDuringWritesAreNeverMarkedClean() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "0ms") {
        @Shared(.registered("busy")) var value: [Int] = []
        for index in 0..<2000 { $value.withLock { $0.append(index) } }
        await TetherSystem.flush()
        let written = try JSONDecoder().decode(
          [Int].self, from: Data(contentsOf: folder.appending(path: "busy.json")))
        #expect(written.count == 2000)
      }
    }
  }

  /// A `withLock` change is saved without a continuation: its failure reaches `saveError` through
  /// the key's subscription, and so does the later write that succeeds; the log says it once
  /// per burst, not once per failed write. (A file where the folder should be fails the write
  /// even for root.)
  @Test func aThrottledChangeThatCannotBeWrittenSetsSaveErrorUntilAFlushWritesIt() async throws {
    LogCapture.install()
    try await withTemporaryDirectory { folder in
      let blocker = folder.appending(path: "sub")
      try Data("not a folder".utf8).write(to: blocker)
      try await fileBootstrap(folder, extra: "[key.sub.value]\npath = sub/value.json") {
        @Shared(.registered("sub.value")) var value = 0
        $value.withLock { $0 = 5 }
        await expectEventually(
          timeout: .seconds(30), "saveError: \(String(describing: $value.saveError))"
        ) {
          $value.saveError.map { "\($0)".contains("Not a directory") } ?? false
        }
        #expect(value == 5, "the change is kept")
        func failures() -> [String] {
          LogCapture.messages(at: .warning, containing: blocker.path)
            .filter { $0.contains("a write failed") }
        }
        // At least five failed writes: 5, 6 (flushed), and 7 to 9, each flushed. A burst ends
        // 10 s after its warning, which a loaded machine can take between two of them: fewer
        // warnings than failures, not one.
        $value.withLock { $0 = 6 }
        await TetherSystem.flush()
        for next in 7...9 {
          $value.withLock { $0 = next }
          await TetherSystem.flush()
        }
        let logged = failures()
        #expect(!logged.isEmpty && logged.count < 5, "\(logged)")
        #expect(logged.first?.contains("Not a directory") == true, "\(logged)")
        try FileManager.default.removeItem(at: blocker)
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        await TetherSystem.flush()
        #expect($value.saveError == nil)
        let written = try Data(contentsOf: blocker.appending(path: "value.json"))
        #expect(String(decoding: written, as: UTF8.self) == "9")
      }
    }
  }

  /// Root ignores folder permissions, so the read-only folder is tried by an unprivileged child.
  // setpriv changes user only as root (which also ignores the folder's permissions, hence it).
  @Test(
    .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
  func aFailedWriteSetsSaveErrorKeepsTheChangeAndSucceedsLater() async throws {
    try await withTemporaryDirectory { folder in
      try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
      let result = try await runHelper(
        .readOnlyFolder(folder: folder.path),
        launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.failed == "Permission denied", "\(result.output)")
      #expect(result.report.afterFlush == "2")
      #expect(result.report.saveErrorCleared == true)
    }
  }
}
