import Foundation
import Testing
import TetherTesting

@Suite struct GetSetTests {
  @Test func setThenGetRoundTripsForAFileKeyAndADefaultsKey() async throws {
    try await withTemporaryDirectory { home in
      let facts = #"[{"number":1,"text":"one"}]"#
      let set = try await tether(
        ["set", "--config", shippedConfig, "favoriteFacts", facts], home: home)
      #expect(set.status == 0, "\(set.errors)")
      let get = try await tether(["get", "--config", shippedConfig, "favoriteFacts"], home: home)
      #expect(get.output == facts + "\n")

      let count = try await tether(["set", "--config", shippedConfig, "count", "42"], home: home)
      #expect(count.status == 0, "\(count.errors)")
      let read = try await tether(["get", "--config", shippedConfig, "count"], home: home)
      #expect(read.output == "42\n")
    }
  }

  @Test func getSaysPlainlyWhenThereIsNoValueOrOnlyARegisteredOne() async throws {
    try await withTemporaryDirectory { home in
      let missing = try await tether(
        ["get", "--config", shippedConfig, "favoriteFacts"], home: home)
      #expect(missing.output.contains("no value"))
      let registered = try await tether(["get", "--config", shippedConfig, "count"], home: home)
      #expect(registered.output.contains("0  (registered default"))
    }
  }

  @Test func invalidValuesAreRefusedAndTheFileStaysByteIdentical() async throws {
    try await withTemporaryDirectory { home in
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", "[]"], home: home)
      _ = try await tether(["set", "--config", shippedConfig, "count", "1"], home: home)
      let factsFile = home.appending(path: "data/tether-demo/favorite-facts.json")
      let defaultsFile = home.appending(path: "config/tether-demo/defaults.ini")
      let (factsBefore, defaultsBefore) = (
        try Data(contentsOf: factsFile), try Data(contentsOf: defaultsFile)
      )
      let badJSON = try await tether(
        ["set", "--config", shippedConfig, "favoriteFacts", "[{"], home: home)
      #expect(badJSON.status != 0)
      let badLiteral = try await tether(
        ["set", "--config", shippedConfig, "count", #""open"#], home: home)
      #expect(badLiteral.status != 0)
      let (factsAfter, defaultsAfter) = (
        try Data(contentsOf: factsFile), try Data(contentsOf: defaultsFile)
      )
      #expect(factsAfter == factsBefore)
      #expect(defaultsAfter == defaultsBefore)
    }
  }

  @Test func setReadsTheValueFromAFileOrStandardInput() async throws {
    try await withTemporaryDirectory { home in
      let value = home.appending(path: "value.json")
      try Data("[]".utf8).write(to: value)
      let fromFile = try await tether(
        ["set", "--config", shippedConfig, "favoriteFacts", "--file", value.path], home: home)
      #expect(fromFile.status == 0, "\(fromFile.errors)")
      let get = try await tether(["get", "--config", shippedConfig, "favoriteFacts"], home: home)
      #expect(get.output == "[]\n")
    }
  }

  @Test func listShowsWhereEachKeyLives() async throws {
    try await withTemporaryDirectory { home in
      let result = try await tether(["list", "--config", shippedConfig], home: home)
      #expect(result.status == 0)
      #expect(
        result.output.contains(
          "favoriteFacts  file      \(home.path)/data/tether-demo/favorite-facts.json"))
      #expect(
        result.output.contains(
          "count          defaults  \(home.path)/config/tether-demo/defaults.ini count"))
      #expect(result.output.contains("session.*      memory"))
    }
  }

  /// `get` and `set` of a file key and a defaults key whose file is a FIFO: each ends at once
  /// with an error naming the path, and the FIFO stays.
  @Test(arguments: [
    ["get", "facts"], ["set", "facts", "1"], ["get", "count"], ["set", "count", "1"],
  ])
  func getAndSetOfAFIFOEndWithAnErrorNamingIt(command: [String]) async throws {
    try await withTemporaryDirectory { folder in
      let (facts, defaults) = (
        folder.appending(path: "facts.json"), folder.appending(path: "defaults.ini")
      )
      try makeFIFO(at: facts)
      try makeFIFO(at: defaults)
      let config = folder.appending(path: "tether.conf")
      try Data(
        """
        [keys]
        facts = file
        count = defaults
        [strategy.file]
        directory = \(folder.path)
        [strategy.defaults]
        file = \(defaults.path)
        """.utf8
      ).write(to: config)
      let result = try await runChild(
        tetherPath, [command[0], "--config", config.path] + command.dropFirst(),
        timeout: .seconds(20))
      let pipe = command[1] == "facts" ? facts : defaults
      #expect(result.status == 1, "ended by signal \(result.status)? \(result.errors)")
      #expect(result.errors.contains("\(pipe.path): not a regular file"), "\(result.errors)")
      var info = stat()
      #expect(lstat(pipe.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "it stays")
    }
  }
}
