import Foundation
import Tether
import TetherDefaults
import TetherTesting

/// Sets `name = literal` in the INI file at `url` as another program would (atomically).
func edit(_ url: URL, _ name: String, _ literal: String?) throws {
  let data = (try? Data(contentsOf: url)) ?? Data()
  var document = try INIDocument(parsing: data, origin: url.path)
  let dot = name.lastIndex(of: ".")
  let section = dot.map { String(name[..<$0]) } ?? ""
  let key = dot.map { String(name[name.index(after: $0)...]) } ?? name
  if let literal {
    document.setValue(literal, section: section, name: key)
  } else {
    document.removeValue(section: section, name: key)
  }
  try Data(document.render().utf8).write(to: url, options: .atomic)
}

func contents(_ url: URL) -> String {
  (try? String(contentsOf: url, encoding: .utf8)) ?? ""
}

/// Runs `body` in a bootstrap that maps every key to a defaults file in `folder`.
func defaultsBootstrap<R>(
  _ folder: URL, throttle: String = "1s", registration: String? = nil,
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async throws -> R {
  try await TetherSystem.withBootstrap(
    configuration: .string(
      """
      [keys]
      * = defaults
      [strategy.defaults]
      file = \(folder.path)/defaults.ini
      throttle = \(throttle)
      \(registration.map { "registration = \($0)" } ?? "")
      """), strategies: [DefaultsStrategy.self], operation: body)
}
