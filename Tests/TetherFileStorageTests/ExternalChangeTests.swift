import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTestHelperSupport
import TetherTesting

@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct ExternalChangeTests {
  /// 2,000 under AddressSanitizer, where 10,000 took 224 s of the 120 s limit.
  private static let saves = ASan.size(plain: 10_000, asan: 2_000)

  @Test func tenThousandOwnSavesAreNeverDeliveredAsExternal() async throws {
    // In memory where there is a tmpfs: 10,000 fsyncs beside the rest of the suite took 97 s.
    let memory = URL(filePath: "/dev/shm", directoryHint: .isDirectory)
    let parent =
      FileManager.default.isWritableFile(atPath: memory.path)
      ? memory : URL(filePath: NSTemporaryDirectory(), directoryHint: .isDirectory)
    try await withTemporaryDirectory(under: parent) { folder in
      try await fileBootstrap(folder, throttle: "0ms") {
        @Shared(.registered("own")) var value = 0
        let key = try registeredFileKey("own")
        let external = Counter()
        let subscription = key.subscribe(context: .userInitiated, subscriber: external.subscriber())
        // Each written on its own: the watcher sees `saves` renames of our own bytes.
        for _ in 0..<Self.saves {
          $value.withLock { $0 += 1 }
          try await $value.save()
        }
        #expect(key.writes >= Self.saves, "the saves reached the disk (\(key.writes) writes)")
        // A marker edited after the saves: once it arrives, their checks have all run.
        @Shared(.registered("marker")) var marker = 0
        try Data("1".utf8).write(to: folder.appending(path: "marker.json"))
        await expectEventually(timeout: .seconds(30)) { marker == 1 }
        #expect(external.all.isEmpty, "own saves came back as external: \(external.all.count)")
        #expect(value == Self.saves)
        // The subscriber does hear an edit that is not ours.
        try Data("-1".utf8).write(to: folder.appending(path: "own.json"))
        await expectEventually(timeout: .seconds(30)) { !external.all.isEmpty }
        subscription.cancel()
      }
    }
  }

  @Test func anExternalWriterInterleavingRenamesAndInPlaceWritesIsNeverMissed() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "v.json")
      try Data("0".utf8).write(to: url)
      @Shared(.fileStorage(url)) var value = 0
      for step in 1...60 {
        if step % 2 == 0 {
          try Data("\(step)".utf8).write(to: url, options: .atomic)
        } else {
          let handle = try FileHandle(forWritingTo: url)
          try handle.truncate(atOffset: 0)
          try handle.write(contentsOf: Data("\(step)".utf8))
          try handle.close()
        }
        await expectEventually(timeout: .seconds(30)) { value == step }
      }
    }
  }

  @Test func aDirectKeyUsesTheBuiltInDefaultsAndARegisteredKeyItsSection() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "0ms", extra: "durability = durable") {
        let direct = FileStorageKey<Int>.fileStorage(folder.appending(path: "a.json"))
        #expect(direct.settings == .default)
        #expect(direct.settings == FileStorageSettings(throttle: .seconds(1), durability: .atomic))
        let registered = try registeredFileKey("b")
        #expect(registered.settings == FileStorageSettings(throttle: .zero, durability: .durable))
      }
    }
  }
}

@Suite(.tetherBootstrap()) struct FileStorageStrategyTests {
  @Test func aRegisteredKeyAndTheFileStorageKeyOfItsPathAreOneReference() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, extra: "[key.favoriteFacts]\npath = lists/favorites.json") {
        @Shared(.registered("favoriteFacts")) var facts: [String] = []
        @Shared(.fileStorage(folder.appending(path: "lists/favorites.json"))) var direct: [String] =
          ["other"]
        #expect(direct == [])
        $direct.withLock { $0 = ["a"] }
        #expect(facts == ["a"])
        #expect($facts.description == #"Shared<Array<String>>(.registered("favoriteFacts"))"#)
      }
    }
  }

  /// One file has one writer in a scope, so the first key's settings hold for every key of
  /// the file; a key that asks for others is told, in the log.
  @Test func aKeyAskingForOtherSettingsOfAnOpenFileIsWarned() async throws {
    LogCapture.install()
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, throttle: "250ms") {
        let path = folder.appending(path: "shared.json")
        @Shared(.registered("shared")) var registered = 1
        @Shared(.fileStorage(path)) var direct = 2
        @Shared(.registered("shared")) var again = 3
        #expect(direct == 1 && again == 1)
        #expect(
          LogCapture.messages(at: .warning, containing: path.path)
            == [
              "\(path.path): open with throttle 250ms, durability atomic (its first key's "
                + "settings); a key asking for throttle 1s, durability atomic shares them"
            ])
      }
    }
  }

  @Test func aTypeThatIsNotCodableFailsAtFirstUse() async throws {
    struct Opaque: Sendable {}
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder) {
        @Shared(.registered("opaque")) var opaque = Opaque()
        #expect(
          $opaque.loadError as? TetherError
            == .unsupportedType("Opaque", key: "opaque", kind: "file"))
      }
    }
  }

  @Test func optionsAreReadAndCheckedAtTheirLine() throws {
    let good = try FileStorageStrategy(
      options: StrategyOptions(
        entries: [
          ("directory", "data", 1), ("throttle", "250ms", 2), ("durability", "durable", 3),
        ],
        origin: "f.conf", baseDirectory: URL(filePath: "/etc/app")))
    #expect(good.directory.path == "/etc/app/data")
    #expect(
      good.settings == FileStorageSettings(throttle: .milliseconds(250), durability: .durable))
    #expect(
      throws: TetherError.invalidOption(
        name: "durability", message: "expected atomic or durable, found \"safe\"",
        location: "f.conf:1")
    ) {
      try FileStorageStrategy(
        options: StrategyOptions(entries: [("durability", "safe", 1)], origin: "f.conf"))
    }
  }

  @Test func theDefaultDirectoryIsTheExecutablesFolderInXDGDataHome() throws {
    let strategy = try FileStorageStrategy(options: StrategyOptions())
    let expected =
      try PathExpansion.process.xdg("XDG_DATA_HOME") + "/"
      + ProcessInfo.processInfo.processName
    #expect(strategy.directory.path == expected)
  }

  @Test func aDurableWriteSucceeds() async throws {
    try await withTemporaryDirectory { folder in
      try await fileBootstrap(folder, extra: "durability = durable") {
        @Shared(.registered("d")) var d = 0
        $d.withLock { $0 = 3 }
        try await $d.save()
        #expect(text(folder.appending(path: "d.json")) == "3")
      }
    }
  }
}
