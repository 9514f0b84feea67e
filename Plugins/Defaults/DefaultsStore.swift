public import Foundation
import Logging
import Tether
import TetherFiles
import TetherWatcher

/// An INI defaults file — the Linux answer to a `UserDefaults` suite — and an optional
/// read-only registration file shipped with the app, whose values show through until the user
/// file sets them.
///
/// ```swift
/// let store = DefaultsStore(
///   file: URL(filePath: "/home/ada/.config/facts/defaults.ini"),
///   registration: Bundle.module.url(forResource: "defaults", withExtension: "ini"))
/// @Shared(.defaults("ui.theme", store: store)) var theme = "light"
/// ```
///
/// Two stores are equal when their files resolve to one path.
public final class DefaultsStore: Sendable, Hashable {
  /// The user's file: `$XDG_CONFIG_HOME/<executable name>/defaults.ini`.
  public static let standard = DefaultsStore(file: standardFile)

  /// The user's file, which writes go to.
  public let file: URL
  /// The read-only file of registered values, if any.
  public let registration: URL?
  /// `file` resolved through symlinks.
  package let path: String
  /// `registration` resolved through symlinks.
  package let registrationPath: String?

  /// A store writing `file`, reading registered values from `registration`.
  public init(file: URL, registration: URL? = nil) {
    self.file = file
    self.registration = registration
    self.path = ResolvedPath.of(file)
    self.registrationPath = registration.map(ResolvedPath.of)
  }

  /// Stores are equal when their files resolve to one path.
  public static func == (lhs: DefaultsStore, rhs: DefaultsStore) -> Bool { lhs.path == rhs.path }

  /// Hashes the resolved path.
  public func hash(into hasher: inout Hasher) { hasher.combine(path) }

  private static var standardFile: URL {
    let config: String
    do {
      config = try PathExpansion.process.xdg("XDG_CONFIG_HOME")
    } catch {
      config = FileManager.default.currentDirectoryPath
      DefaultsFile.logger.warning(
        "\(error.message); the standard defaults file is in the current folder")
    }
    return URL(filePath: config).appending(
      path: "\(ProcessInfo.processInfo.processName)/defaults.ini")
  }
}
