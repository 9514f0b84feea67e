import TetherCommandLine
import TetherDefaults
import TetherEnvironment
import TetherFileStorage
import TetherInMemory
import TetherPostgres

// The plain tool: Tether's own strategies, no app's key declarations.
await TetherCommand(
  strategies: [
    InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self,
    EnvironmentStrategy.self, PostgresStrategy.self,
  ]
).main()
