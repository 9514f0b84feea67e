public import Foundation

extension TetherConfiguration {
  /// The config file of `app`, found where DESIGN §8 looks, the first that exists:
  ///
  /// 1. `$TETHER_CONFIG` (relative to `currentDirectory`); when it is set, it is the only place
  ///    looked at, and a file missing there is an error, not a reason to look elsewhere;
  /// 2. `Config/tether.conf` in `currentDirectory`;
  /// 3. `$XDG_CONFIG_HOME/<app>/tether.conf` (`~/.config/<app>/tether.conf` when
  ///    `XDG_CONFIG_HOME` is unset, empty or relative, as the XDG specification says).
  ///
  /// Throws ``TetherError/configurationNotFound(tried:)`` listing the places tried when none
  /// exists. A command-line option naming the file comes before all of these: check it first.
  ///
  /// ```swift
  /// try TetherSystem.bootstrap(
  ///   configuration: .discover(app: "notes"),
  ///   strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self])
  /// ```
  ///
  /// - Parameters:
  ///   - app: The app's name, the folder of its config under `$XDG_CONFIG_HOME`.
  ///   - environment: Where `TETHER_CONFIG`, `XDG_CONFIG_HOME` and `HOME` are read.
  ///   - currentDirectory: The folder `Config/tether.conf` and a relative `$TETHER_CONFIG` are
  ///     looked for in.
  /// - Returns: ``file(_:)`` with the absolute path of the file found.
  public static func discover(
    app: String,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    currentDirectory: String = FileManager.default.currentDirectoryPath
  ) throws(TetherError) -> TetherConfiguration {
    guard !app.isEmpty, !app.contains("/"), app != ".", app != ".." else {
      throw .invalidConfiguration(
        message: "\(String(reflecting: app)) cannot name an app's config folder: it must be "
          + "one non-empty path component", location: "<discover>")
    }
    let base = URL(filePath: currentDirectory, directoryHint: .isDirectory)
    func absolute(_ path: String) -> String {
      path.hasPrefix("/") ? path : base.appending(path: path).standardizedFileURL.path
    }
    func exists(_ path: String) -> Bool {
      FileManager.default.fileExists(atPath: path)
    }

    if let named = environment["TETHER_CONFIG"], !named.isEmpty {
      let path = absolute(named)
      guard exists(path) else {
        throw .unusableFile(
          path, reason: "TETHER_CONFIG names this config file, but there is no such file")
      }
      return .file(path)
    }
    var tried = ["$TETHER_CONFIG (not set)"]
    let local = absolute("Config/tether.conf")
    if exists(local) { return .file(local) }
    tried.append(local)
    do {
      let home = try PathExpansion(environment: environment).xdg("XDG_CONFIG_HOME")
      let user = URL(filePath: home, directoryHint: .isDirectory)
        .appending(path: app).appending(path: "tether.conf").path
      if exists(user) { return .file(user) }
      tried.append(user)
    } catch {
      tried.append("$XDG_CONFIG_HOME/\(app)/tether.conf (\(error.message))")
    }
    throw .configurationNotFound(tried: tried)
  }
}
