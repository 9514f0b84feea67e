import Foundation
import Testing
import TetherTesting

/// `notes settings …`: Tether's settings tool built with the app's strategies and declared
/// keys, reading and writing each key as its type, the app's own envdir strategy included.
@Suite struct SettingsTests {
  @Test(arguments: [
    ("launches", "abc", "Int"), ("launches", "1.5", "Int"), ("launches", "", "Int"),
    ("notes", #"{"a":1}"#, "[Note]"), ("notes", #"[{"text":"no date"}]"#, "[Note]"),
  ])
  func aValueThatDoesNotFitIsRefusedNamingItsTypeAndNothingIsWritten(
    key: String, value: String, type: String
  ) async throws {
    try await withHome { home in
      #expect(try await home.notes("add", "a note").status == 0)
      try home.writeEnvFile("motd", "Hello.\n")
      let before = try home.files()
      #expect(before.count == 3, "every file exists: \(before.keys)")

      let set = try await home.settings("set", key, value)
      #expect(set.status == 1)
      #expect(set.errors.contains("type \(type)"), "\(set.errors)")
      #expect(try home.files() == before, "every file is byte-identical")
    }
  }

  @Test func aRefusalSaysWhatWasExpectedWhere() async throws {
    try await withHome { home in
      let object = try await home.settings("set", "notes", #"{"a":1}"#)
      #expect(object.errors.contains("type [Note]: expected a JSON array;"), "\(object.errors)")
      let text = try await home.settings("set", "notes", "[\"x\"]")
      #expect(text.errors.contains("expected a JSON object at [0];"), "\(text.errors)")
      let date = try await home.settings("set", "notes", #"[{"text":"x","date":"soon"}]"#)
      #expect(
        date.errors.contains("expected a date such as 2026-11-21T09:30:00Z, found \"soon\""),
        "\(date.errors)")
    }
  }

  @Test func setThenGetRoundTripsEveryStrategy() async throws {
    try await withHome { home in
      try await home.succeeding("set", "launches", "5")
      #expect(try await home.succeeding("get", "launches") == "5\n")
      #expect(try String(contentsOf: home.defaultsFile, encoding: .utf8) == "launches = 5\n")

      try await home.succeeding("set", "motd", "hello")
      #expect(try await home.succeeding("get", "motd") == "hello\n")
      let motd = home.envDirectory.appending(path: "motd")
      #expect(try String(contentsOf: motd, encoding: .utf8) == "hello\n")

      let notes = #"[{"date":"2026-11-21T09:30:00Z","text":"buy milk"}]"#
      try await home.succeeding("set", "notes", notes)
      #expect(try await home.succeeding("get", "notes") == notes + "\n")
      let list = try await home.notes("list")
      #expect(list.output == "1. buy milk  (2026-11-21T09:30:00Z)\n", "\(list.errors)")
    }
  }

  @Test func getPrintsTheDefaultWhileNothingIsStored() async throws {
    try await withHome { home in
      let values = [
        try await home.succeeding("get", "launches"), try await home.succeeding("get", "notes"),
        try await home.succeeding("get", "motd"),
      ]
      #expect(values == ["0\n", "[]\n", "Welcome to notes.\n"])
      #expect(try home.files().isEmpty, "reading creates no file")
    }
  }

  @Test func resetOfAnEnvdirKeyRemovesItsFileAndGetPrintsTheDefault() async throws {
    try await withHome { home in
      try await home.succeeding("set", "motd", "hello")
      let motd = home.envDirectory.appending(path: "motd")
      #expect(FileManager.default.fileExists(atPath: motd.path))
      try await home.succeeding("reset", "motd")
      #expect(!FileManager.default.fileExists(atPath: motd.path))
      #expect(try await home.succeeding("get", "motd") == "Welcome to notes.\n")
      // Nothing stored is already reset.
      try await home.succeeding("reset", "motd")
    }
  }

  @Test func resetOfADefaultsKeyAndAFileKeyBringsBackTheirDefaults() async throws {
    try await withHome { home in
      try await home.succeeding("set", "launches", "5")
      try await home.succeeding("set", "notes", #"[{"date":"2026-11-21T09:30:00Z","text":"x"}]"#)
      try await home.succeeding("reset", "launches")
      try await home.succeeding("reset", "notes")
      let values = [
        try await home.succeeding("get", "launches"), try await home.succeeding("get", "notes"),
      ]
      #expect(values == ["0\n", "[]\n"])
      #expect(!FileManager.default.fileExists(atPath: home.notesFile.path))
      #expect(try String(contentsOf: home.defaultsFile, encoding: .utf8) == "")
    }
  }

  @Test func listJSONHasOneObjectPerKeyWithTypeStrategyValueAndSource() async throws {
    try await withHome { home in
      try await home.succeeding("set", "launches", "3")
      try await home.succeeding("set", "motd", "hi")
      let rows = try jsonLines(try await home.succeeding("list", "--json"))
      #expect(rows.map { $0["key"] as? String } == ["launches", "notes", "motd"])
      let byKey = Dictionary(uniqueKeysWithValues: rows.map { ($0["key"] as? String ?? "", $0) })

      #expect(byKey["launches"]?["type"] as? String == "Int")
      #expect(byKey["launches"]?["strategy"] as? String == "defaults")
      #expect(byKey["launches"]?["value"] as? Int == 3)
      #expect(byKey["launches"]?["source"] as? String == home.defaultsFile.path + ":1")

      #expect(byKey["notes"]?["type"] as? String == "[Note]")
      #expect(byKey["notes"]?["strategy"] as? String == "file")
      #expect((byKey["notes"]?["value"] as? [Any])?.isEmpty == true)
      #expect(byKey["notes"]?["source"] as? String == "default")

      #expect(byKey["motd"]?["type"] as? String == "String")
      #expect(byKey["motd"]?["strategy"] as? String == "envdir")
      #expect(byKey["motd"]?["value"] as? String == "hi")
      #expect(byKey["motd"]?["source"] as? String == "stored by the envdir strategy")
    }
  }

  @Test func describeShowsTheTypeTheDefaultAndTheSummary() async throws {
    try await withHome { home in
      let text = try await home.succeeding("describe", "launches")
      for line in ["type:     Int", "default:  0", "summary:  How many times notes has started."] {
        #expect(text.contains(line + "\n"), "\(text)")
      }
      let motd = try jsonLines(try await home.succeeding("describe", "--json", "motd"))
      #expect(motd.first?["type"] as? String == "String")
      #expect(motd.first?["default"] as? String == "Welcome to notes.")
      #expect(motd.first?["strategy"] as? String == "envdir")
      #expect(
        motd.first?["summary"] as? String == "The message notes shows when it starts.")
    }
  }

  @Test func exportThenImportBringsEveryValueBack() async throws {
    try await withHome { home in
      let notes = #"[{"date":"2026-11-21T09:30:00Z","text":"buy milk"}]"#
      try await home.succeeding("set", "launches", "7")
      try await home.succeeding("set", "motd", "exported")
      try await home.succeeding("set", "notes", notes)
      let exported = try await home.succeeding("export")
      let object = try JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [String: Any]
      #expect(object?.keys.sorted() == ["launches", "motd", "notes"], "\(exported)")
      #expect(object?["launches"] as? Int == 7)
      #expect(object?["motd"] as? String == "exported")
      let file = home.folder.appending(path: "exported.json")
      try Data(exported.utf8).write(to: file)

      try await home.succeeding("set", "launches", "1")
      try await home.succeeding("set", "motd", "changed")
      try await home.succeeding("set", "notes", "[]")
      try await home.succeeding("import", file.path)
      #expect(try await home.succeeding("get", "launches") == "7\n")
      #expect(try await home.succeeding("get", "motd") == "exported\n")
      #expect(try await home.succeeding("get", "notes") == notes + "\n")
    }
  }

  @Test(arguments: [
    #"{"launches": 2, "motd": "new", "notes": [{"text": "x"}]}"#,
    #"{"launches": "two", "motd": "new", "notes": []}"#,
    #"{"launches": 2, "motd": "new", "unknown": 1}"#,
  ])
  func anImportWithOneBadValueWritesNothing(json: String) async throws {
    try await withHome { home in
      try await home.succeeding("set", "launches", "1")
      try await home.succeeding("set", "motd", "old")
      try await home.succeeding("set", "notes", "[]")
      let before = try home.files()
      let file = home.folder.appending(path: "import.json")
      try Data(json.utf8).write(to: file)

      let result = try await home.settings("import", file.path)
      #expect(result.status == 1)
      #expect(result.errors.contains("nothing was written"), "\(result.errors)")
      #expect(try home.files() == before, "every file is byte-identical")
    }
  }

  @Test func settingsTakesItsOwnConfigOptionAndVersion() async throws {
    try await withHome { home in
      let result = try await runChild(
        notesPath, ["settings", "get", "--config", shippedConfig, "launches"],
        environment: home.environment)
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.output == "0\n")
      let version = try await home.settings("--version")
      #expect(version.status == 0 && !version.output.isEmpty, "\(version.errors)")
    }
  }
}
