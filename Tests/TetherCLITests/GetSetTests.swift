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

  /// `tether set` writes through the file's store, as a holder's `save()` does: it wrote around
  /// it, and replaced a file it could not read as JSON without keeping it.
  @Test func setOverACorruptFileKeepsItBesideAndKeepsTheFilesMode() async throws {
    try await withTemporaryDirectory { home in
      let folder = home.appending(path: "data/tether-demo")
      let file = folder.appending(path: "favorite-facts.json")
      let corrupt = Data(#"{"hand": "edited", broken"#.utf8)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try corrupt.write(to: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)

      let set = try await tether(
        ["set", "--config", shippedConfig, "favoriteFacts", "[1,2]"], home: home)
      #expect(set.status == 0, "\(set.errors)")
      #expect(try Data(contentsOf: file) == Data("[1,2]".utf8))
      let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
      #expect(attributes[.posixPermissions] as? Int == 0o640)
      let backups = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.hasPrefix("favorite-facts.json.corrupt-") }
      #expect(backups.count == 1, "beside the file: \(backups)")
      for backup in backups {
        #expect(try Data(contentsOf: folder.appending(path: backup)) == corrupt)
      }
    }
  }

  /// `tether set` of a defaults key writes through the file's locked read-merge-replace, as a
  /// holder's write does: it waits for the lock another writer holds, then changes its line
  /// only, keeping the file's other lines and its mode.
  @Test func setOfADefaultsKeyWaitsForTheFilesLockAndKeepsItsLinesAndMode() async throws {
    try await withTemporaryDirectory { home in
      let folder = home.appending(path: "config/tether-demo")
      let file = folder.appending(path: "defaults.ini")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data("# mine\ncount = 1\nother = x\n".utf8).write(to: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
      // The lock a holder's write takes, held here as another process's write would hold it.
      let lock = open(folder.appending(path: ".defaults.ini.lock").path, O_RDONLY | O_CREAT, 0o600)
      #expect(lock >= 0)
      #expect(flock(lock, LOCK_EX) == 0)
      var held = true
      defer { if held { close(lock) } }

      let set = try runningTether(["set", "--config", shippedConfig, "count", "42"], home: home)
      let waiter = "-> FLOCK  ADVISORY  WRITE \(set.process.processIdentifier) "
      try await expectEventually(timeout: .seconds(30), "tether set waits for the lock") {
        let locks = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return locks.contains(waiter)
      }
      #expect(try Data(contentsOf: file) == Data("# mine\ncount = 1\nother = x\n".utf8))
      close(lock)
      held = false
      #expect(await set.finish() == 0, "\(set.errorText)")
      #expect(try Data(contentsOf: file) == Data("# mine\ncount = 42\nother = x\n".utf8))
      let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
      #expect(attributes[.posixPermissions] as? Int == 0o640)
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
          "favoriteFacts  -     file      \(home.path)/data/tether-demo/favorite-facts.json"))
      #expect(
        result.output.contains(
          "count          -     defaults  \(home.path)/config/tether-demo/defaults.ini count"))
      #expect(result.output.contains("session.*      -     memory"))
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
