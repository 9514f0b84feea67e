import Foundation
import Tether

enum UnknownKindsShim { case tolerated, refused }

extension StrategyRegistry {
  convenience init(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    declarations: [KeyDeclaration] = [], unknownKinds: UnknownKindsShim
  ) throws {
    try self.init(configuration: configuration, strategies: strategies, declarations: declarations)
  }
  func foreignKind(of name: String) -> String? { nil }
  var foreignStrategies: [String: String] { [:] }
  static func diagnose(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    declarations: [KeyDeclaration], unknownKinds: UnknownKindsShim
  ) -> [TetherError] {
    diagnose(configuration: configuration, strategies: strategies)
  }
}

extension TetherConfiguration {
  static func discover(app: String) throws -> TetherConfiguration { .file("Config/tether.conf") }
}

extension StoredTextStrategy {
  func resetStoredValue(of name: String, options: StrategyOptions) async throws {
    throw ValueError("shim")
  }
}
