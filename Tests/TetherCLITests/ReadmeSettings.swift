// The settings command of the command-line tool article (TheCommandLineTool.md), compiled.
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
