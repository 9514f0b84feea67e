// The README's settings command, compiled: ReadmeTests checks that it stays word for word.
import Tether
import TetherCommandLine
import TetherDefaults
import TetherFileStorage
import TetherInMemory

// `myapp settings get count`: the whole tool, with the app's strategies and keys.
func settings(_ arguments: [String]) async {
  await TetherCommand(
    name: "myapp settings", app: "myapp",
    strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self],
    keys: appKeys
  ).main(arguments)
}
