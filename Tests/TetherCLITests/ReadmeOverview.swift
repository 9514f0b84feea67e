// The README's example, compiled: ReadmeTests checks that it stays word for word.
import Tether
import TetherDefaults

extension SharedKey where Self == RegisteredKey<Int>.Default {
  static var count: Self { Self[.registered("count"), default: 0] }
}

func startApp() throws {
  // The config decides where each key lives; every mistake is reported at once.
  try TetherSystem.bootstrap(
    configuration: .file("Config/tether.conf"), strategies: [DefaultsStrategy.self],
    keys: [.key(.count, "How many times the counter was pressed.")])
}

func counter() {
  @Shared(.count) var count  // a line of defaults.ini, as Config/tether.conf says
  $count.withLock { $0 += 1 }  // every holder sees it before this returns
}

// The keys of the settings command in ReadmeSettings.swift (The command-line tool article).
struct Fact: Codable, Equatable, Sendable {
  var number: Int
  var text: String
}

extension SharedKey where Self == RegisteredKey<[Fact]>.Default {
  static var favoriteFacts: Self { Self[.registered("favoriteFacts"), default: []] }
}

let appKeys: [KeyDeclaration] = [
  .key(.count, "How many times the counter was pressed."),
  .key(.favoriteFacts, "Facts saved as favourites, oldest first."),
]
