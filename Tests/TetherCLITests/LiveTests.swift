import Foundation
import Testing
import TetherTesting

/// A `tether` process kept running, with XDG folders inside `home`.
func runningTether(_ arguments: [String], home: URL) throws -> RunningChild {
  try RunningChild(
    tetherPath, arguments,
    environment: [
      "XDG_DATA_HOME": home.appending(path: "data").path,
      "XDG_CONFIG_HOME": home.appending(path: "config").path,
    ])
}

@Suite(.timeLimit(.minutes(2))) struct LiveTests {
  @Test func watchPrintsAChangeMadeByAnotherProcess() async throws {
    try await withTemporaryDirectory { home in
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", "[]"], home: home)
      let watch = try runningTether(
        ["watch", "--config", shippedConfig, "favoriteFacts"], home: home)
      defer { watch.process.interrupt() }
      // It says so once its watch is live.
      await expectEventually(timeout: .seconds(30)) { watch.errorText.contains("watching") }
      let facts = #"[{"number":7,"text":"seven"}]"#
      _ = try await tether(["set", "--config", shippedConfig, "favoriteFacts", facts], home: home)
      await expectEventually(timeout: .seconds(30)) { watch.text.contains("seven") }
      #expect(watch.text.contains("favoriteFacts \(facts)"), "\(watch.text)")
      watch.process.interrupt()
      #expect(
        await watch.finish() == 0, "SIGINT ends watch with 0: \(watch.errorText.suffix(4000))")
    }
  }

  @Test func theDemoKeepsItsStateAndSeesAnotherProcesssSet() async throws {
    try await withTemporaryDirectory { home in
      let first = try runningTether(["demo", "--config", shippedConfig], home: home)
      for command in ["+", "+", "fact", "save", "list", "quit"] { first.send(command) }
      #expect(await first.finish() == 0, "\(first.text)\n\(first.errorText.suffix(4000))")
      #expect(first.text.contains("count: 2"))
      let defaults = try String(
        contentsOf: home.appending(path: "config/tether-demo/defaults.ini"), encoding: .utf8)
      #expect(defaults.contains("count = 2"))
      let favorites = try JSONSerialization.jsonObject(
        with: Data(contentsOf: home.appending(path: "data/tether-demo/favorite-facts.json")))
      #expect((favorites as? [Any])?.count == 1)

      let second = try runningTether(["demo", "--config", shippedConfig], home: home)
      await expectEventually(timeout: .seconds(30)) { second.text.contains("count: 2 ·") }
      let set = try await tether(["set", "--config", shippedConfig, "count", "42"], home: home)
      #expect(set.status == 0, "\(set.errors)")
      await expectEventually(timeout: .seconds(30)) {
        second.text.contains("count changed outside: 42")
      }
      second.send("quit")
      #expect(await second.finish() == 0, "\(second.errorText.suffix(4000))")
    }
  }

  @Test func theDemoShowsTheLoadErrorOfAFavouritesFileEditedIntoInvalidJSON() async throws {
    try await withTemporaryDirectory { home in
      let facts = #"[{"number":7,"text":"seven"}]"#
      let set = try await tether(
        ["set", "--config", shippedConfig, "favoriteFacts", facts], home: home)
      #expect(set.status == 0, "\(set.errors)")
      let demo = try runningTether(["demo", "--config", shippedConfig], home: home)
      await expectEventually(timeout: .seconds(30)) { demo.text.contains("favourites: 1") }
      let file = home.appending(path: "data/tether-demo/favorite-facts.json")
      try Data(#"[{"number": 7, "text": broken"#.utf8).write(to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30)) {
        demo.text.contains("favourites could not be loaded: ")
      }
      // A valid edit after it: once the demo shows it, it has read past the corrupt edit's
      // change, which must not have been shown as the file's value.
      try Data(#"[{"number":1,"text":"one"},{"number":2,"text":"two"}]"#.utf8).write(
        to: file, options: .atomic)
      await expectEventually(timeout: .seconds(30)) {
        demo.text.contains("favourites changed outside: 2 now")
      }
      demo.send("quit")
      #expect(await demo.finish() == 0, "\(demo.errorText.suffix(4000))")
      #expect(!demo.text.contains("favourites changed outside: 0 now"), "\(demo.text)")
    }
  }
}
