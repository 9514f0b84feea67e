// The README's overview, compiled: ReadmeTests checks that it stays word for word.
import Tether
import TetherDefaults
import TetherFileStorage
import TetherInMemory

struct Fact: Codable, Equatable, Sendable {
  var number: Int
  var text: String
}

// Declare keys once, by name and type.
extension SharedKey where Self == RegisteredKey<Int>.Default {
  static var count: Self { Self[.registered("count"), default: 0] }
}
extension SharedKey where Self == RegisteredKey<[Fact]>.Default {
  static var favoriteFacts: Self { Self[.registered("favoriteFacts"), default: []] }
}

// What each key is for: startup checks them against the config, and the settings tool
// reads and writes each as its type.
let appKeys: [KeyDeclaration] = [
  .key(.count, "How many times the counter was pressed."),
  .key(.favoriteFacts, "Facts saved as favourites, oldest first."),
]

func startApp() throws {
  // At startup: the config decides where each key lives; every mistake is reported at once.
  try TetherSystem.bootstrap(
    configuration: .file("Config/tether.conf"),
    strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self],
    keys: appKeys)
}

func counter() {
  @Shared(.count) var count  // in defaults.ini, as Config/tether.conf says
  @Shared(.favoriteFacts) var favoriteFacts  // in favorite-facts.json
  $count.withLock { $0 += 1 }  // every holder sees it before this returns
  $favoriteFacts.withLock { $0.append(Fact(number: count, text: "a fact")) }
}
