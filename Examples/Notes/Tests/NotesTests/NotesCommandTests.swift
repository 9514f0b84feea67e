import Foundation
import Testing
import TetherTesting

/// The app itself: notes kept in a file, the message of the day read from the envdir folder.
@Suite struct NotesCommandTests {
  @Test func addListAndRemoveNotes() async throws {
    try await withHome { home in
      #expect(try await home.notes("add", "buy", "milk").output == "Added note 1.\n")
      #expect(try await home.notes("add", "call mum").output == "Added note 2.\n")
      let list = try await home.notes("list")
      let lines = list.output.split(separator: "\n")
      #expect(
        lines.count == 2 && lines[0].hasPrefix("1. buy milk  (")
          && lines[1].hasPrefix("2. call mum  ("), "\(list.output)")

      let stored = try JSONSerialization.jsonObject(with: Data(contentsOf: home.notesFile))
      // `pretty = true` in the config: a file a person can read and edit.
      let text = String(decoding: try Data(contentsOf: home.notesFile), as: UTF8.self)
      #expect(text.contains("\n    \"date\" : ") && text.hasSuffix("]\n"), "\(text)")
      let texts = (stored as? [[String: Any]])?.map { $0["text"] as? String }
      #expect(texts == ["buy milk", "call mum"])
      let date = (stored as? [[String: Any]])?.first?["date"] as? String
      #expect(
        date?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(date ?? "no date")")

      #expect(try await home.notes("remove", "1").output == "Removed note 1: buy milk\n")
      #expect(try await home.notes("list").output.hasPrefix("1. call mum  ("))

      let missing = try await home.notes("remove", "5")
      #expect(missing.status == 1)
      #expect(missing.errors.contains("there is no note 5"), "\(missing.errors)")
    }
  }

  @Test func theMessageOfTheDayComesFromTheEnvdirFolder() async throws {
    try await withHome { home in
      let first = try await home.notes()
      #expect(first.output.hasPrefix("Welcome to notes.\nLaunch 1."), "\(first.output)")
      try home.writeEnvFile("motd", "Good morning.\n")
      let second = try await home.notes()
      #expect(second.output.hasPrefix("Good morning.\nLaunch 2."), "\(second.output)")
    }
  }

  @Test func aMessageFileThatCannotBeReadIsReportedAndTheDefaultShown() async throws {
    try await withHome { home in
      try home.writeEnvFile("motd", "")
      try Data([0xFF, 0x0A]).write(to: home.envDirectory.appending(path: "motd"))
      let result = try await home.notes()
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.output.hasPrefix("Welcome to notes.\n"))
      let file = home.envDirectory.appending(path: "motd").path
      #expect(result.errors.contains("\(file): key \"motd\": not UTF-8 text"), "\(result.errors)")
    }
  }

  /// Without --config, the app and its settings command find the config where every Tether
  /// app looks first: $TETHER_CONFIG (the only place looked at when it is set).
  @Test func theConfigMayComeFromTetherConfig() async throws {
    try await withHome { home in
      var environment = home.environment
      environment["TETHER_CONFIG"] = shippedConfig
      let add = try await runChild(
        notesPath, ["add", "from the environment"], environment: environment)
      #expect(add.status == 0, "\(add.errors)")
      #expect(FileManager.default.fileExists(atPath: home.notesFile.path))
      let get = try await runChild(
        notesPath, ["settings", "get", "launches"], environment: environment)
      #expect(get.output == "1\n", "\(get.errors)")

      environment["TETHER_CONFIG"] = home.folder.appending(path: "missing.conf").path
      for arguments in [["list"], ["settings", "list"]] {
        let missing = try await runChild(notesPath, arguments, environment: environment)
        #expect(missing.status == 1)
        #expect(
          missing.errors.contains(
            "missing.conf: TETHER_CONFIG names this config file, but there is no such file"),
          "\(missing.errors)")
      }
    }
  }

  @Test func aNotesFileThatDoesNotDecodeIsNotReplaced() async throws {
    try await withHome { home in
      try FileManager.default.createDirectory(
        at: home.notesFile.deletingLastPathComponent(), withIntermediateDirectories: true)
      let corrupt = Data(#"[{"text": "hand-edited", broken"#.utf8)
      try corrupt.write(to: home.notesFile)
      let add = try await home.notes("add", "another")
      #expect(add.status == 1)
      #expect(add.errors.contains("the notes cannot be read"), "\(add.errors)")
      #expect(try Data(contentsOf: home.notesFile) == corrupt)
    }
  }

  @Test(arguments: [["bogus"], ["remove", "x"], ["add"], ["list", "extra"], ["--config"]])
  func aUsageErrorExits64(arguments: [String]) async throws {
    try await withHome { home in
      let result = try await runChild(notesPath, arguments, environment: home.environment)
      #expect(result.status == 64)
      #expect(result.errors.contains("usage: notes"), "\(result.errors)")
      #expect(try home.files().isEmpty, "nothing is written")
    }
  }
}
