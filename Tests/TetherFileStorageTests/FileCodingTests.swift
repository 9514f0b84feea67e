import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// The `pretty` and `dates` options of registered file keys: per strategy section, per key (the
/// key wins), checked where they are written; direct `.fileStorage(url)` keys keep their coders.
@Suite(.timeLimit(.minutes(2))) struct FileCodingTests {
  struct Note: Codable, Equatable, Sendable {
    var title = "a/b"
    var count = 1
    var date = Date(timeIntervalSinceReferenceDate: 0)
  }

  /// A config mapping every key to `file` in `folder`, `section` added to `[strategy.file]`.
  static func config(_ folder: URL, _ section: String, keys: String = "") -> String {
    """
    [keys]
    * = file
    [strategy.file]
    directory = \(folder.path)
    \(section)
    \(keys)
    """
  }

  /// Saves `note` under each name and returns each file's text.
  static func written(
    _ names: [String], in folder: URL, config: String, note: Note = Note()
  ) async throws -> [String] {
    try await TetherSystem.withBootstrap(
      configuration: .string(config), strategies: [FileStorageStrategy.self]
    ) {
      for name in names {
        @Shared(.registered(name)) var value = Note(title: "")
        $value.withLock { $0 = note }
        try await $value.save()
      }
    }
    return names.map { text(folder.appending(path: "\($0).json")) ?? "<missing>" }
  }

  /// Whether `text` is what `JSONEncoder()` writes for `value`, in some order of its keys: one
  /// line, no spaces, dates as seconds since 2001.
  static func isCompact(_ text: String, of value: Note) throws -> Bool {
    func object(_ data: Data) throws -> NSDictionary? {
      try JSONSerialization.jsonObject(with: data) as? NSDictionary
    }
    let expected = try object(JSONEncoder().encode(value))
    let found = try object(Data(text.utf8))
    return !text.contains("\n") && !text.contains(" ") && expected != nil && found == expected
  }

  @Test func prettyWritesIndentedSortedJSONEndingInANewline() async throws {
    try await withTemporaryDirectory { folder in
      let files = try await Self.written(
        ["note"], in: folder, config: Self.config(folder, "pretty = true"))
      #expect(
        files == [
          """
          {
            "count" : 1,
            "date" : 0,
            "title" : "a\\/b"
          }

          """
        ])
    }
  }

  @Test func compactIsWhatJSONEncoderWrites() async throws {
    try await withTemporaryDirectory { folder in
      let files = try await Self.written(
        ["plain", "off"], in: folder,
        config: Self.config(folder, "", keys: "[key.off]\npretty = false"))
      // JSONEncoder's order of unsorted keys differs between runs: compared as JSON.
      for file in files {
        #expect(try Self.isCompact(file, of: Note()), "\(file)")
      }
    }
  }

  @Test func iso8601DatesAreTextAndReadBack() async throws {
    try await withTemporaryDirectory { folder in
      let config = Self.config(folder, "dates = iso8601")
      let note = Note(date: Date(timeIntervalSince1970: 1_795_253_400))
      let files = try await Self.written(["note"], in: folder, config: config, note: note)
      #expect(files[0].contains(#""date":"2026-11-21T09:30:00Z""#), "\(files)")
      #expect(!files[0].contains("\n"))
      try await TetherSystem.withBootstrap(
        configuration: .string(config), strategies: [FileStorageStrategy.self]
      ) {
        @Shared(.registered("note")) var read = Note()
        #expect(read == note)
        #expect($read.loadError == nil)
      }
      // As a person might write one: a fraction of a second, another time zone.
      try Data(#"{"title":"t","count":2,"date":"2026-11-21T10:30:00.5+01:00"}"#.utf8)
        .write(to: folder.appending(path: "edited.json"))
      try await TetherSystem.withBootstrap(
        configuration: .string(config), strategies: [FileStorageStrategy.self]
      ) {
        @Shared(.registered("edited")) var edited = Note()
        #expect(edited.date == Date(timeIntervalSince1970: 1_795_253_400.5))
      }
    }
  }

  @Test func aFileWithSecondsIsALoadErrorOnceDatesAreISO8601AndIsKept() async throws {
    try await withTemporaryDirectory { folder in
      _ = try await Self.written(["note"], in: folder, config: Self.config(folder, ""))
      let url = folder.appending(path: "note.json")
      let before = text(url)
      try await TetherSystem.withBootstrap(
        configuration: .string(Self.config(folder, "dates = iso8601")),
        strategies: [FileStorageStrategy.self]
      ) {
        @Shared(.registered("note")) var note = Note(title: "default")
        #expect(note.title == "default")
        guard
          case .invalidValue(key: "note", let message, location: url.path)? =
            $note.loadError as? TetherError
        else {
          Issue.record("expected a decoding error, got \(String(describing: $note.loadError))")
          return
        }
        #expect(message.contains("date"), "\(message)")
      }
      #expect(text(url) == before, "the file is kept")
    }
  }

  @Test func aKeysOwnOptionsWinOverItsStrategys() async throws {
    try await withTemporaryDirectory { folder in
      let files = try await Self.written(
        ["shared", "own"], in: folder,
        config: Self.config(
          folder, "pretty = true\ndates = iso8601",
          keys: "[key.own]\npretty = no\ndates = seconds-since-2001"))
      #expect(files[0].hasSuffix("}\n") && files[0].contains(#""date" : "2001-01-01T00:00:00Z""#))
      #expect(try Self.isCompact(files[1], of: Note()), "\(files[1])")
    }
  }

  @Test func invalidValuesAreReportedWhereTheyAreWritten() async throws {
    try await withTemporaryDirectory { folder in
      let path = folder.appending(path: "tether.conf").path
      try Self.config(folder, "pretty = maybe").write(
        toFile: path, atomically: true, encoding: .utf8)
      await #expect(
        throws: TetherError.invalidOption(
          name: "pretty", message: "expected true or false, found \"maybe\"",
          location: "\(path):5")
      ) {
        try await TetherSystem.withBootstrap(
          configuration: .file(path), strategies: [FileStorageStrategy.self]
        ) {}
      }
      try Self.config(folder, "", keys: "[key.note]\npath = n.json\ndates = unix").write(
        toFile: path, atomically: true, encoding: .utf8)
      try await TetherSystem.withBootstrap(
        configuration: .file(path), strategies: [FileStorageStrategy.self]
      ) {
        @Shared(.registered("note")) var note = Note()
        #expect(
          $note.loadError as? TetherError
            == .invalidOption(
              name: "dates", message: "expected iso8601 or seconds-since-2001, found \"unix\"",
              location: "\(path):8"))
      }
    }
  }

  @Test func directFileKeysKeepTheirOwnCoders() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "direct.json")
      let custom = folder.appending(path: "custom.json")
      try await TetherSystem.withBootstrap(
        configuration: .string(Self.config(folder, "pretty = true\ndates = iso8601")),
        strategies: [FileStorageStrategy.self]
      ) {
        @Shared(.fileStorage(url)) var direct = Note(title: "")
        $direct.withLock { $0 = Note() }
        try await $direct.save()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        @Shared(.fileStorage(custom, encoder: encoder)) var own = Note(title: "")
        $own.withLock { $0 = Note() }
        try await $own.save()
      }
      #expect(try Self.isCompact(text(url) ?? "", of: Note()), "\(text(url) ?? "")")
      #expect(text(custom)?.contains(#""title":"a/b""#) == true, "\(text(custom) ?? "")")
    }
  }
}
