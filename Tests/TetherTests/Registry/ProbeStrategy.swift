import Foundation
import Synchronization
import Tether
import TetherInMemory

/// A test strategy that reads one option of every type, stores only `Int` and `String` (in
/// memory), and declares its per-key options.
struct ProbeStrategy: PersistenceStrategy {
  static let kind = "probe"
  static var keyOptionNames: Set<String>? { ["path", "label"] }

  let throttle: Duration?
  let directory: URL?
  let retries: Int?
  let verbose: Bool?

  init(options: StrategyOptions) throws {
    throttle = try options.duration("throttle")
    directory = try options.path("directory")
    retries = try options.integer("retries")
    verbose = try options.bool("verbose")
  }

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    guard type == Int.self || type == String.self else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
    }
    _ = (options["path"], options["label"])
    return InMemoryKey<Value>.inMemory("probe:\(name)")
  }
}

/// A strategy that does not declare its per-key options: it reads only `label`.
struct LooseStrategy: PersistenceStrategy {
  static let kind = "loose"
  init(options: StrategyOptions) throws {}

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    InMemoryKey<Value>.inMemory("loose:\(name):\(options["label"] ?? "")")
  }
}

/// The strategies most registry tests register.
let testStrategies: [any PersistenceStrategy.Type] = [
  InMemoryStrategy.self, ProbeStrategy.self, LooseStrategy.self,
]

/// Loads `text` as a config named `t.conf` and returns the error it throws.
func configError(_ text: String) -> TetherError? {
  do {
    _ = try StrategyRegistry(
      configuration: .string(text, origin: "t.conf"), strategies: testStrategies)
    return nil
  } catch let error as TetherError {
    return error
  } catch {
    return .invalidConfiguration(message: "unexpected \(error)", location: "?")
  }
}
