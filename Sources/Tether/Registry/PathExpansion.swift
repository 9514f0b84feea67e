package import Foundation

/// Expands `~`, `$HOME` and `$XDG_*_HOME` at the start of a configured path, and resolves a
/// relative path against a base folder.
///
/// Unset XDG variables take the fallbacks of the XDG Base Directory specification; an empty or
/// relative XDG value is ignored as the specification says.
package struct PathExpansion: Sendable {
  private let environment: [String: String]

  /// Expansion with the process's environment.
  package static var process: PathExpansion {
    PathExpansion(environment: ProcessInfo.processInfo.environment)
  }

  package init(environment: [String: String]) {
    self.environment = environment
  }

  private static let xdgFallbacks = [
    "XDG_DATA_HOME": ".local/share",
    "XDG_CONFIG_HOME": ".config",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
  ]

  /// The user's home folder: `$HOME`.
  package func home() throws(ExpansionError) -> String {
    guard let home = environment["HOME"], home.hasPrefix("/") else {
      throw ExpansionError("HOME is not set to an absolute path")
    }
    return home
  }

  /// The value of an XDG base directory variable, or its fallback under `$HOME`.
  package func xdg(_ name: String) throws(ExpansionError) -> String {
    guard let fallback = Self.xdgFallbacks[name] else {
      throw ExpansionError(
        "unknown variable $\(name); paths may start with ~, $HOME or "
          + Self.xdgFallbacks.keys.sorted().map { "$" + $0 }.joined(separator: ", "))
    }
    if let value = environment[name], value.hasPrefix("/") { return value }
    return try home() + "/" + fallback
  }

  /// `path` with its leading `~` or `$VARIABLE` expanded, made absolute against `base`.
  package func expand(_ path: String, relativeTo base: URL) throws(ExpansionError) -> URL {
    var expanded = path
    if path == "~" || path.hasPrefix("~/") {
      expanded = try home() + path.dropFirst()
    } else if path.hasPrefix("$") {
      let variable = path.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      let rest = path.dropFirst(1 + variable.count)
      guard rest.isEmpty || rest.hasPrefix("/") else {
        throw ExpansionError("expected \"/\" after $\(variable)")
      }
      let value = variable == "HOME" ? try home() : try xdg(String(variable))
      expanded = value + rest
    }
    guard !expanded.isEmpty else { throw ExpansionError("the path is empty") }
    if expanded.hasPrefix("/") {
      return URL(filePath: expanded).standardized
    }
    return base.appending(path: expanded).standardized
  }

  /// Why a path could not be expanded.
  package struct ExpansionError: Error {
    package let message: String
    init(_ message: String) { self.message = message }
  }
}
