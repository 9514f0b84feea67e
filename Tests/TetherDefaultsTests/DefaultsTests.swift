import Foundation
import Observation
import Synchronization
import Testing
import Tether
@_spi(Benchmarking) import TetherDefaults
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsTests {
  @Test func conformance() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try await StrategyConformance.run(
        DefaultsStrategy.self, options: "file = \(file.path)\nthrottle = 100ms",
        externalEdit: { name, value in try edit(file, name, "\(value)") })
    }
  }

  /// A `withLock` change is saved without a continuation: its failure reaches `saveError` through
  /// the key's subscription, and so does the later write that succeeds. (A file where the folder
  /// should be fails the write even for root.)
  @Test func aThrottledChangeThatCannotBeWrittenSetsSaveErrorUntilAFlushWritesIt() async throws {
    try await withTemporaryDirectory { folder in
      let blocker = folder.appending(path: "sub")
      try Data("not a folder".utf8).write(to: blocker)
      let store = DefaultsStore(file: blocker.appending(path: "defaults.ini"))
      @Shared(.defaults("count", store: store)) var count = 0
      $count.withLock { $0 = 5 }
      await expectEventually(
        timeout: .seconds(30), "saveError: \(String(describing: $count.saveError))"
      ) {
        $count.saveError.map { "\($0)".contains("Not a directory") } ?? false
      }
      #expect(count == 5, "the change is kept")
      try FileManager.default.removeItem(at: blocker)
      try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
      await TetherSystem.flush()
      #expect($count.saveError == nil)
      #expect(contents(store.file) == "count = 5\n")
    }
  }

  @Test func editingOneKeyChangesExactlyThatLine() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let original = """
        # Settings for the facts app
        count = 1

        ; the look
        [ui]
        theme   = light
        unknown = kept "as is"
        # trailing comment

        """
      try Data(original.utf8).write(to: file)
      let store = DefaultsStore(file: file)
      @Shared(.defaults("ui.theme", store: store)) var theme = "system"
      #expect(theme == "light")
      $theme.withLock { $0 = "dark" }
      try await $theme.save()
      let before = original.split(separator: "\n", omittingEmptySubsequences: false)
      let after = contents(file).split(separator: "\n", omittingEmptySubsequences: false)
      #expect(before.count == after.count)
      let changed = zip(before, after).filter { $0 != $1 }
      #expect(changed.map(\.1) == ["theme   = dark"])
    }
  }

  @Test func registrationValuesShowThroughUntilTheUserSetsTheKey() async throws {
    try await withTemporaryDirectory { folder in
      let registration = folder.appending(path: "registered.ini")
      try Data("count = 5\n[ui]\ntheme = blue\n".utf8).write(to: registration)
      let file = folder.appending(path: "defaults.ini")
      try await defaultsBootstrap(folder, registration: registration.path) {
        @Shared(.registered("count")) var count = 0
        #expect(count == 5)
        $count.withLock { $0 = 6 }
        try await $count.save()
        #expect(contents(file).contains("count = 6"))
        #expect(contents(registration) == "count = 5\n[ui]\ntheme = blue\n", "never written")
        try edit(file, "count", nil)
        await expectEventually(timeout: .seconds(30)) { count == 5 }
      }
    }
  }

  @Test func aBadHandEditGivesTheDefaultAndAnErrorNamingTheLine() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("# mine\ncount = 3\nother = 1\n".utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        @Shared(.registered("count")) var count = 10
        @Shared(.registered("other")) var other = 0
        #expect(count == 3)
        try edit(file, "count", "three")
        await expectEventually(timeout: .seconds(30)) { $count.loadError != nil }
        #expect(count == 10)
        #expect(
          ($count.loadError as? TetherError)?.description
            == #"\#(file.path):2: key "count": expected a whole number from -9223372036854775808 to 9223372036854775807, found "three""#
        )
        // Another key's write leaves the bad line as it is.
        $other.withLock { $0 = 2 }
        try await $other.save()
        #expect(contents(file).contains("count = three"))
        $count.withLock { $0 = 4 }
        try await $count.save()
        #expect(contents(file).contains("count = 4"))
        #expect($count.loadError == nil)
      }
    }
  }

  @Test func aLineThatDoesNotParseCostsOnlyItsOwnKey() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      let broken = "name = \"unterminated\nb = 2\n[ui]\ntheme = dark\n"
      try Data(broken.utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        @Shared(.registered("name")) var name = "default"
        @Shared(.registered("b")) var b = 0
        @Shared(.registered("ui.theme")) var theme = "light"
        #expect(b == 2)
        #expect(theme == "dark")
        #expect($b.loadError == nil)
        #expect(name == "default")
        #expect(
          ($name.loadError as? TetherError)?.description
            == #"\#(file.path):1: key "name": unterminated quoted string (missing closing ")"#)
        // Other keys still write, and the broken line stays as it was.
        $b.withLock { $0 = 5 }
        try await $b.save()
        #expect($b.saveError == nil)
        #expect(contents(file) == broken.replacingOccurrences(of: "b = 2", with: "b = 5"))
        // An edit that breaks another line costs that key only, and gives its default.
        try Data(contents(file).replacingOccurrences(of: "theme = dark", with: "theme = \"x").utf8)
          .write(to: file, options: .atomic)
        await expectEventually(timeout: .seconds(30)) { $theme.loadError != nil }
        #expect(theme == "light")
        #expect(b == 5)
        // Writing the broken key replaces its line.
        $name.withLock { $0 = "fixed" }
        try await $name.save()
        #expect(contents(file).hasPrefix("name = fixed\n"))
        #expect($name.loadError == nil)
      }
    }
  }

  @Test func aBrokenHeaderOrATwiceDefinedKeyIsReportedOnItsKeys() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("a = 1\na = 2\nc = 3\n[ui\ntheme = dark\n".utf8).write(to: file)
      try await defaultsBootstrap(folder) {
        @Shared(.registered("a")) var a = 0
        @Shared(.registered("c")) var c = 0
        @Shared(.registered("ui.theme")) var theme = "light"
        @Shared(.registered("ui.size")) var size = 12
        // Compared as one array: Swift 6.3 can swap an integer literal in `#expect` for the
        // default of a nearby local property wrapper.
        let values: [Int] = [a, c, size]
        #expect(values == [0, 3, 12])
        #expect(
          ($a.loadError as? TetherError)?.description
            == #"\#(file.path):2: key "a": duplicate key "a" (first defined at line 1)"#)
        #expect(theme == "light")
        #expect(
          ($theme.loadError as? TetherError)?.description
            == #"\#(file.path):4: key "ui.theme": expected "]" to close the section header"#)
        #expect($size.loadError != nil)
        // A new value defines the key once.
        $a.withLock { $0 = 7 }
        try await $a.save()
        #expect(contents(file) == "a = 7\nc = 3\n[ui\ntheme = dark\n")
        #expect($a.loadError == nil)
      }
    }
  }

  @Test func anExternalEditWakesHoldersOfThatKeyOnly() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("a = 1\nb = 1\n".utf8).write(to: file)
      let store = DefaultsStore(file: file)
      let seenA = Mutex(0)
      let seenB = Mutex(0)
      let a = DefaultsKey<Int>.defaults("a", store: store)
      let b = DefaultsKey<Int>.defaults("b", store: store)
      let subscriptionA = a.subscribe(
        context: .userInitiated,
        subscriber: SharedSubscriber { _ in seenA.withLock { $0 += 1 } })
      let subscriptionB = b.subscribe(
        context: .userInitiated,
        subscriber: SharedSubscriber { _ in seenB.withLock { $0 += 1 } })
      try edit(file, "a", "2")
      await expectEventually(timeout: .seconds(30)) { seenA.withLock { $0 } == 1 }
      try edit(file, "b", "2")
      await expectEventually(timeout: .seconds(30)) { seenB.withLock { $0 } >= 1 }
      try edit(file, "a", "3")
      await expectEventually(timeout: .seconds(30)) { seenA.withLock { $0 } >= 2 }
      // Each was woken by its own edits only: a twice, b once.
      #expect(seenA.withLock { $0 } == 2)
      #expect(seenB.withLock { $0 } == 1)
      withExtendedLifetime((subscriptionA, subscriptionB)) {}
    }
  }

  @Test func aTypeADefaultsFileCannotStoreIsReportedNotCrashed() async throws {
    struct Point: Sendable { var x = 0 }
    try await withTemporaryDirectory { folder in
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      @Shared(.defaults("point", store: store)) var point = Point()
      #expect(
        $point.loadError as? TetherError
          == .unsupportedType("Point", key: "point", kind: "defaults"))
      $point.withLock { $0.x = 1 }
      #expect($point.saveError != nil)
      #expect(throws: TetherError.unsupportedType("Point", key: "p", kind: "defaults")) {
        try DefaultsStrategy(options: StrategyOptions())
          .key(named: "p", as: Point.self, options: StrategyOptions())
      }
    }
  }

  @Test func aRegisteredKeyAndTheDefaultsKeyOfItsFileAreOneReference() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder) {
        @Shared(.registered("ui.theme")) var registered = "a"
        let store = DefaultsStore(file: folder.appending(path: "./defaults.ini"))
        @Shared(.defaults("ui.theme", store: store)) var direct = "b"
        #expect(direct == "a")
        $direct.withLock { $0 = "c" }
        #expect(registered == "c")
        #expect(store == DefaultsStore(file: folder.appending(path: "defaults.ini")))
      }
    }
  }

  /// One defaults file has one engine in a scope: the first key's registration file and
  /// throttle hold for every key of it; a key that asks for others is told, in the log.
  /// A defaults file's engine goes with the last key that reads it, and its entry with it;
  /// the keys of a file still read keep theirs.
  @Test func aDefaultsFileGoesWithItsLastKey() async throws {
    try await withTemporaryDirectory { folder in
      let kept = Shared(
        wrappedValue: 0,
        .defaults("kept", store: DefaultsStore(file: folder.appending(path: "k.ini"))))
      do {
        let keys = (0..<50).map {
          Shared(
            wrappedValue: $0,
            .defaults("n", store: DefaultsStore(file: folder.appending(path: "f\($0).ini"))))
        }
        #expect(DefaultsProbe.openFiles == 51)
        withExtendedLifetime(keys) {}
      }
      await expectEventually(timeout: .seconds(30)) { DefaultsProbe.openFiles == 1 }
      kept.withLock { $0 = 1 }
      #expect(DefaultsProbe.openFiles == 1)
    }
  }

  @Test func aKeyAskingForAnotherRegistrationOfAnOpenFileIsWarned() async throws {
    LogCapture.install()
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder) {
        let file = folder.appending(path: "defaults.ini")
        @Shared(.registered("a")) var registered = 1
        @Shared(.defaults("a", store: DefaultsStore(file: file))) var same = 2
        #expect(LogCapture.messages(at: .warning, containing: file.path).isEmpty)
        let other = DefaultsStore(file: file, registration: folder.appending(path: "shipped.ini"))
        @Shared(.defaults("a", store: other)) var direct = 3
        #expect(same == 1 && direct == 1)
        let warnings = LogCapture.messages(at: .warning, containing: file.path)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("registration none and throttle 1.0 seconds") == true)
        #expect(
          warnings.first?.contains("/shipped.ini and throttle 1.0 seconds shares them") == true)
      }
    }
  }

  /// A hand edit saved while this process writes the key it just changed: the edit is the later
  /// change, so it stays on disk and reaches the holder. Racing the write's start, it used to
  /// land between the write's check and its rename in about one round in seven, and be lost.
  @Test func anEditSavedWhileALocalChangeIsWrittenWins() async throws {
    try await withTemporaryDirectory { folder in
      for round in 0..<30 {
        let roundFolder = folder.appending(path: "\(round)")
        try FileManager.default.createDirectory(at: roundFolder, withIntermediateDirectories: true)
        let store = DefaultsStore(file: roundFolder.appending(path: "defaults.ini"))
        let count = Shared(wrappedValue: 0, .defaults("count", store: store))
        count.withLock { $0 = 1 }
        try edit(store.file, "count", "2")
        await expectEventually(timeout: .seconds(30), "round \(round)") {
          count.wrappedValue == 2
        }
        #expect(contents(store.file) == "count = 2\n", "round \(round)")
      }
    }
  }

  /// A reader that opened the file before two writes still reads the bytes it opened, whole:
  /// no write goes into an inode a reader may hold (a kept temp file written over in place gave
  /// such a reader the first half of one version and the rest of another). Beside the file,
  /// only its lock is left.
  @Test func aReaderHoldingTheFileKeepsItsBytesAcrossWrites() async throws {
    try await withTemporaryDirectory { folder in
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      @Shared(.defaults("text", store: store)) var text = ""
      $text.withLock { $0 = String(repeating: "A", count: 50_000) }
      try await $text.save()
      let before = try Data(contentsOf: store.file)
      let reader = try FileHandle(forReadingFrom: store.file)
      defer { try? reader.close() }
      let start = try #require(try reader.read(upToCount: 10))
      for letter in ["B", "C"] {
        $text.withLock { $0 = String(repeating: letter, count: 50_008) }
        try await $text.save()
      }
      let rest = try reader.readToEnd() ?? Data()
      #expect(start + rest == before, "the reader read one version, whole")
      #expect(contents(store.file).contains(String(repeating: "C", count: 50_008)))
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      #expect(names == [".defaults.ini.lock", "defaults.ini"])
    }
  }

  /// A spare temp file an earlier version kept beside the file is cleared away on open.
  @Test func anEarlierVersionsSpareIsRemoved() async throws {
    try await withTemporaryDirectory { folder in
      let spare = folder.appending(path: ".defaults.ini.tether-spare")
      try Data("old".utf8).write(to: spare)
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      @Shared(.defaults("count", store: store)) var count = 0
      $count.withLock { $0 = 1 }
      try await $count.save()
      #expect(!FileManager.default.fileExists(atPath: spare.path))
    }
  }

  /// A defaults file that is a symbolic link (a dotfiles manager's) stays one: writes go to its
  /// target, with the lock beside the target.
  @Test func aLinkedDefaultsFileStaysALinkAndItsTargetIsWritten() async throws {
    try await withTemporaryDirectory { folder in
      let dotfiles = folder.appending(path: "dotfiles")
      let config = folder.appending(path: "config")
      for url in [dotfiles, config] {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      }
      let target = dotfiles.appending(path: "app.ini")
      try Data("# mine\ncount = 1\n".utf8).write(to: target)
      let link = config.appending(path: "defaults.ini")
      try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
      @Shared(.defaults("count", store: DefaultsStore(file: link))) var count = 0
      #expect(count == 1)
      for value in 2...3 {
        $count.withLock { $0 = value }
        try await $count.save()
      }
      #expect(contents(target) == "# mine\ncount = 3\n")
      let destination = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
      #expect(destination == target.path)
      #expect(try FileManager.default.contentsOfDirectory(atPath: config.path) == ["defaults.ini"])
      let beside = try FileManager.default.contentsOfDirectory(atPath: dotfiles.path).sorted()
      #expect(beside == [".app.ini.lock", "app.ini"])
    }
  }
}
