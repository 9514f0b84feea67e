import Foundation
import Testing
import Tether

@Suite struct StrategyOptionsTests {
  let base = URL(filePath: "/etc/app")

  func options(
    _ values: [(String, String)], environment: [String: String] = ["HOME": "/home/ada"]
  ) -> StrategyOptions {
    StrategyOptions(
      entries: values.enumerated().map { ($1.0, $1.1, $0 + 1) }, origin: "o.conf",
      baseDirectory: base, expansion: PathExpansion(environment: environment))
  }

  @Test(arguments: [
    ("~", "/home/ada"),
    ("~/notes", "/home/ada/notes"),
    ("$HOME/x", "/home/ada/x"),
    ("$XDG_DATA_HOME/facts", "/home/ada/.local/share/facts"),
    ("$XDG_CONFIG_HOME", "/home/ada/.config"),
    ("$XDG_CACHE_HOME/facts", "/home/ada/.cache/facts"),
    ("$XDG_STATE_HOME/facts", "/home/ada/.local/state/facts"),
    ("data/facts", "/etc/app/data/facts"),
    ("./a/../b", "/etc/app/b"),
    ("/var/lib/x", "/var/lib/x"),
  ])
  func pathsExpandAndResolveAgainstTheConfigFolder(_ value: String, _ expected: String) throws {
    #expect(try options([("p", value)]).path("p")?.path == expected)
  }

  @Test func setXDGVariablesWinAndRelativeOnesAreIgnored() throws {
    let environment = ["HOME": "/h", "XDG_DATA_HOME": "/data", "XDG_CACHE_HOME": "relative"]
    let o = options(
      [("d", "$XDG_DATA_HOME/x"), ("c", "$XDG_CACHE_HOME/x")], environment: environment)
    #expect(try o.path("d")?.path == "/data/x")
    #expect(try o.path("c")?.path == "/h/.cache/x")
  }

  @Test func aMissingHomeIsAnError() {
    #expect(throws: TetherError.self) {
      try options([("p", "~/x")], environment: [:]).path("p")
    }
  }

  @Test func durations() throws {
    let o = options([("a", "250ms"), ("b", "1s"), ("c", "2m"), ("d", "1h"), ("e", "ms")])
    #expect(try o.duration("a") == .milliseconds(250))
    #expect(try o.duration("b") == .seconds(1))
    #expect(try o.duration("c") == .seconds(120))
    #expect(throws: TetherError.self) { try o.duration("d") }
    #expect(throws: TetherError.self) { try o.duration("e") }
    #expect(try o.duration("absent") == nil)
  }

  @Test func booleansIntegersAndLocations() throws {
    let o = options([("a", "yes"), ("b", "Off"), ("n", "-3")])
    #expect(try o.bool("a") == true)
    #expect(try o.bool("b") == false)
    #expect(try o.integer("n") == -3)
    #expect(o.location(of: "n") == "o.conf:3")
    #expect(o.names == ["a", "b", "n"])
    #expect(o.invalid("a", "nope").description == #"o.conf:1: option "a": nope"#)
  }

  @Test func optionsGivenInCodeAreSortedAndLocatedAtTheirOrigin() {
    let o = StrategyOptions(["b": "2", "a": "1"], origin: "code")
    #expect(o.names == ["a", "b"])
    #expect(o["a"] == "1")
    #expect(o.location(of: "a") == "code")
  }

  @Test func readsAreTrackedAcrossCopies() {
    let o = options([("a", "1"), ("b", "2")])
    let copy = o
    _ = copy["a"]
    #expect(o.unread == ["b"])
  }
}
