import Foundation
import Testing
import TetherTesting

/// The plain `tether`: no app's declarations, so keys are read and written in their stored
/// form, and a key of a kind it does not have is reported while every other key works.
@Suite struct PlainToolTests {
  @Test func resetRemovesTheStoredValueOfAFileKeyAndADefaultsKey() async throws {
    try await withTemporaryDirectory { home in
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", "[]"], home: home)
      _ = try await tether(["set", "--config", shippedConfig, "count", "5"], home: home)
      let facts = home.appending(path: "data/tether-demo/favorite-facts.json")
      #expect(FileManager.default.fileExists(atPath: facts.path))
      for key in ["favoriteFacts", "count"] {
        let reset = try await tether(["reset", "--config", shippedConfig, key], home: home)
        #expect(reset.status == 0, "\(reset.errors)")
      }
      #expect(!FileManager.default.fileExists(atPath: facts.path))
      let count = try await tether(["get", "--config", shippedConfig, "count"], home: home)
      #expect(count.output.contains("0  (registered default"), "\(count.output)")
    }
  }

  @Test func jsonOutputIsOneObjectPerLine() async throws {
    try await withTemporaryDirectory { home in
      _ = try await tether(["set", "--config", shippedConfig, "count", "42"], home: home)
      let get = try await tether(["get", "--json", "--config", shippedConfig, "count"], home: home)
      let object = try JSONSerialization.jsonObject(with: Data(get.output.utf8)) as? [String: Any]
      #expect(object?["value"] as? Int == 42)
      #expect((object?["source"] as? String)?.hasSuffix("defaults.ini:1") == true, "\(get.output)")
      let list = try await tether(["list", "--json", "--config", shippedConfig], home: home)
      let rows: [[String: Any]] = try list.output.split(separator: "\n").compactMap {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
      let keys = rows.compactMap { $0["key"] as? String }
      #expect(keys.contains("favoriteFacts"))
      #expect(rows.count == 4, "\(list.output)")
    }
  }

  @Test func exportThenImportRoundTripsTheStoredValues() async throws {
    try await withTemporaryDirectory { home in
      let facts = #"[{"number":1,"text":"one"}]"#
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", facts], home: home)
      _ = try await tether(["set", "--config", shippedConfig, "count", "7"], home: home)
      let exported = try await tether(["export", "--config", shippedConfig], home: home)
      #expect(exported.status == 0, "\(exported.errors)")
      let file = home.appending(path: "values.json")
      try Data(exported.output.utf8).write(to: file)
      _ = try await tether(["set", "--config", shippedConfig, "count", "8"], home: home)
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", "[]"], home: home)
      let imported = try await tether(
        ["import", "--config", shippedConfig, file.path], home: home)
      #expect(imported.status == 0, "\(imported.errors)")
      let count = try await tether(["get", "--config", shippedConfig, "count"], home: home)
      #expect(count.output == "7\n")
      let read = try await tether(["get", "--config", shippedConfig, "favoriteFacts"], home: home)
      #expect(read.output == facts + "\n")
    }
  }

  /// A config naming an app's own strategy: the plain tool says which keys it cannot reach
  /// and why, and everything else keeps working.
  @Test func aKeyOfAKindTheToolLacksIsReportedAndTheRestWorks() async throws {
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "tether.conf")
      try Data(
        """
        [keys]
        count = defaults
        motd  = envdir
        [strategy.defaults]
        file = \(folder.path)/defaults.ini
        [strategy.envdir]
        directory = \(folder.path)/env
        """.utf8
      ).write(to: config)
      let set = try await tether(["set", "--config", config.path, "count", "3"])
      #expect(set.status == 0, "\(set.errors)")
      let get = try await tether(["get", "--config", config.path, "count"])
      #expect(get.output == "3\n", "\(get.errors)")
      let other = try await tether(["get", "--config", config.path, "motd"])
      #expect(other.status == 1)
      #expect(
        other.errors.contains("mapped to envdir")
          && other.errors.contains("use your app's own settings command"), "\(other.errors)")
      // check stays strict: it cannot check envdir's options, and a misspelt kind looks the same.
      let check = try await tether(["check", "--config", config.path])
      #expect(check.status == 1, "\(check.errors)")
      #expect(
        check.errors.contains("unknown strategy") && check.errors.contains(#""envdir""#),
        "\(check.errors)")
      #expect(check.errors.contains("that app's settings command"), "\(check.errors)")
    }
  }

  @Test func versionAndDescribe() async throws {
    try await withTemporaryDirectory { home in
      let version = try await tether(["--version"], home: home)
      #expect(version.status == 0)
      #expect(version.output.split(separator: ".").count == 3, "\(version.output)")
      let describe = try await tether(
        ["describe", "--json", "--config", shippedConfig, "favoriteFacts"], home: home)
      let object =
        try JSONSerialization.jsonObject(with: Data(describe.output.utf8)) as? [String: Any]
      #expect(object?["strategy"] as? String == "file")
      #expect((object?["location"] as? String)?.hasSuffix("favorite-facts.json") == true)
    }
  }

  /// The shell's completion script asks the tool for key names: the names the config maps.
  @Test func keyNamesComplete() async throws {
    let script = try await tether(["--generate-completion-script", "bash"])
    #expect(script.output.contains("---completion get -- positional@0"))
    let names = try await tether(
      [
        "---completion", "get", "--", "positional@0", "4", "0", "tether", "get", "--config",
        shippedConfig, "",
      ])
    #expect(names.output.split(separator: "\n") == ["count", "favoriteFacts"], "\(names.errors)")
  }
}
