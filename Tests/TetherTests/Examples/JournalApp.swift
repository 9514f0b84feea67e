import Tether
import TetherInMemory

/// How an app starts with its own strategy beside Tether's: once, before any key is used.
enum JournalApp {
  static func start() throws {
    try TetherSystem.bootstrap(
      configuration: .file("Config/tether.conf"),
      strategies: [InMemoryStrategy.self, JournalStrategy.self])
  }
}
